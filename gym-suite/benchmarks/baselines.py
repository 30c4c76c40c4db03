"""The baselines table: references and agents trained over several seeds, on every suite environment.

    python gym-suite/benchmarks/baselines.py                      # everything missing, then the table
    python gym-suite/benchmarks/baselines.py --ids heartpole-v1 --policies sb3-ppo --seeds 0-4
    python gym-suite/benchmarks/baselines.py --summarize           # the table from the runs recorded so far
    python gym-suite/benchmarks/baselines.py --quick --runs-csv /tmp/runs.csv --out-md '' --out-csv '' --out-png ''
    RAY_ADDRESS=10.0.0.5:6379 python gym-suite/benchmarks/baselines.py   # on a Ray cluster (or --address)

Two steps. **Runs**: for every id, every policy and every training seed asked for (default: 5
seeds for Stable-Baselines3 and Ray RLlib, 10 for JAX PPO, which trains them in one vmapped run),
train the agent with the id's recipe (``gym_suite.training``) and score it greedily with
``gym_suite.evaluate`` on the same seeded evaluation episodes (episode *i* reset with seed *i*),
whatever the training seed; the references (random, the heuristic, the best known policy, the
optimum where it is known, push-v0's supervised baseline) are scored on the same episodes. Every
run is a Ray task (JAX PPO's seeds: one task), on a new local Ray by default or on the cluster of
``--address`` (or ``RAY_ADDRESS``); each asks for ``--cpus`` CPUs (1 by default) and the custom
resources of ``--resources``. The script is the driver: it gathers the tasks' results and appends
each run to ``--runs-csv`` (default ``docs/baselines_runs.csv``) as its task finishes; a run
already there is not run again (``--force`` reruns it), so an interrupted grid resumes with the
same command, losing only the tasks that were running.

**Summary**: per id and policy, over the training seeds, the interquartile mean (IQM) of the
seeds' mean returns and its 95 % stratified-bootstrap interval (rliable's
``get_interval_estimates``, 50,000 resamples, percentile method), the worst seed and how many seeds
*diverged* (scored below the random policy), and the normalized score
``(score - random) / (optimum - random)`` with its interval, where *optimum* is the id's optimum,
or its best known policy where no optimum is known (the ``reference`` column says which). A
reference policy has no training seed: its row gives the mean return over the evaluation
episodes and the 95 % interval of that mean (normal approximation). Outputs: ``--out-md``
(``docs/baselines.md``), ``--out-csv`` (``docs/baselines.csv``), ``--out-png``
(``docs/img/baselines_normalized.png``: rliable's interval plot of the normalized IQMs) and
``docs/baselines_machine.json`` (the machine and library versions of the runs).

Where an environment replays data (push-v0, push-v1), every policy is scored on the held-out test log
(its recipe's ``eval_env_kwargs``) and, beside it, on the training log, so that memorisation
shows as a gap. Training runs on the CPU with one torch thread; its wall time depends on the
CPU and on what else the machine was doing, and torch's kernels differ between CPUs, so a
seed's return on another machine may differ too: the interval over seeds is the figure that
carries over.

The summary needs the ``baselines`` extra (rliable, matplotlib; scikit-learn for the supervised
push-v0 baseline): ``pip install -e ".[baselines]"``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import io
import json
import math
import os
import platform
import sys
import tempfile
import time
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from _machine import cpu_name, missing, versions  # this folder's helpers (the script's folder is on sys.path)

import gym_suite
from gym_suite.cli import jobs_int, positive_int
from gym_suite.evaluate import evaluate
from gym_suite.references import references
from gym_suite.score import reference_table_text
from gym_suite.training.recipes import (
    given_tuned_recipes,
    recipe_for,
    settings_digest,
    tuned_entry,
)
from gym_suite.training.resolved import resolved_training

ROOT = Path(__file__).resolve().parents[2]  # the repository
DEFAULT_MD = ROOT / "docs" / "baselines.md"
DEFAULT_CSV = ROOT / "docs" / "baselines.csv"
DEFAULT_RUNS = ROOT / "docs" / "baselines_runs.csv"
DEFAULT_PNG = ROOT / "docs" / "img" / "baselines_normalized.png"
DEFAULT_MACHINE = ROOT / "docs" / "baselines_machine.json"
#: The table's reference numbers as package data, for gym_suite.score (written with DEFAULT_CSV).
PACKAGE_TABLE = ROOT / "gym_suite" / "data" / "baselines.csv"
COMMAND = "python gym-suite/benchmarks/baselines.py"

#: Policies with no training, in the table's order. ``optimum``: the optimal policy where it is
#: known (or, for heartpole, the dynamic-programming policy); ``best-known``: the best policy
#: known where no optimum is; ``supervised``: push-v0's logistic regression on the training log.
REFERENCES = ("random", "heuristic", "supervised", "best-known", "optimum")
#: Trained agents, in the table's order, with their default number of training seeds.
#: ``sb3-recurrent-ppo``: an agent with memory (an LSTM), trained on the ids whose recipe gives it a
#: budget (example-v1, whose observation hides the position). ``reward-model``: a model of the
#: reward fit on explored steps and planned with the optimum's program
#: (:mod:`gym_suite.training.reward_model`), on the ids whose recipe gives it a budget (push-v1).
TRAINED = {"sb3-ppo": 5, "sb3-dqn": 5, "rllib-ppo": 5, "jax-ppo": 10, "sb3-recurrent-ppo": 5, "reward-model": 5}
POLICIES = (*REFERENCES, *TRAINED)
LABELS = {
    "random": "random",
    "heuristic": "heuristic",
    "supervised": "supervised: logistic regression",
    "best-known": "best known policy",
    "optimum": "optimum",
    "sb3-ppo": "SB3 PPO",
    "sb3-dqn": "SB3 DQN",
    "rllib-ppo": "RLlib PPO",
    "jax-ppo": "JAX PPO (rejax)",
    "sb3-recurrent-ppo": "SB3-contrib RecurrentPPO (LSTM)",
    "reward-model": "reward model + planning",
}
#: (id, policy) pairs the table leaves out, and why: nothing plans them and no run of them counts
#: (the runs already made stay in the runs file).
LEFT_OUT = {
    ("heartpole-v1", "sb3-dqn"): (
        "no SB3 DQN row: the row compares agents trained to the budget at which PPO plateaus (1.2M steps), and "
        "DQN trains at about 330 steps a second on these machines (an hour a seed at that budget); its 100k-step "
        "runs, a budget rather than a plateau (seeds 219 to 409, one at -49,962), stay in the runs file"
    ),
    **dict.fromkeys(
        (("example-v1", "sb3-ppo"), ("example-v1", "sb3-dqn")),
        "no SB3 PPO or DQN row: memoryless, as JAX PPO is, whose row stands for them",
    ),
}
#: The first day whose JAX PPO runs all ran rejax's updates as ``train_ppo``'s three compiled
#: programs (before it, rejax's ``train`` as one; runs are dated by the day, and every run of
#: 2026-11-26 predates the change): older runs are said to be so in the table's notes.
CHUNKED_TRAINING_SINCE = "2026-11-27"
QUICK_EPISODES = 100
QUICK_BUDGET = 5_000
BOOTSTRAP_REPS = 50_000
CONFIDENCE = 0.95

RUN_FIELDS = (
    "env_id",
    "policy",
    "train_seed",
    "eval_seed",
    "episodes",
    "mean_return",
    "std_return",
    "mean_length",
    "mean_return_on_training_data",
    "train_steps",
    "train_seconds",
    "eval_seconds",
    "note",
    "date",
    "cpu",
    "digest",
)
SUMMARY_FIELDS = (
    "env_id",
    "policy",
    "seeds",
    "iqm",
    "ci_low",
    "ci_high",
    "worst_seed",
    "diverged",
    "normalized",
    "normalized_ci_low",
    "normalized_ci_high",
    "reference",
    "eval_episodes",
    "on_training_data",
    "train_steps",
    "train_seconds",
    "command",
)


# --------------------------------------------------------------------------------------------
# The policies
# --------------------------------------------------------------------------------------------


def row_label(env_id: str, policy: str) -> str:
    """What the row of ``policy`` on ``env_id`` is called: a reference by its kind (``optimum``,
    ``oracle``, ``grid DP``, ...; :class:`gym_suite.references.Reference`), an agent by its label."""
    found = references(env_id).get(policy)
    if found is None or policy == "supervised":
        return LABELS[policy]
    return found.kind


def _reference_module(name: str) -> Any:
    """A module of :mod:`gym_suite.references` (the reference policies, installed with the package)."""
    return importlib.import_module(f"gym_suite.references.{name}")


def available(env_id: str, policy: str) -> bool:
    """Whether ``policy`` has a row for ``env_id`` (DQN needs discrete actions; references vary;
    :data:`LEFT_OUT` none)."""
    if (env_id, policy) in LEFT_OUT:
        return False
    if policy in ("random", "heuristic"):
        return True
    if policy in REFERENCES:
        return policy in references(env_id)
    if policy == "sb3-dqn":
        import gymnasium
        from gymnasium import spaces

        probe = gymnasium.make(env_id)
        discrete = isinstance(probe.action_space, spaces.Discrete)
        probe.close()
        return discrete
    if policy in ("sb3-recurrent-ppo", "reward-model"):
        return policy in recipe_for(env_id).budgets
    return True


# --------------------------------------------------------------------------------------------
# Runs: one line per (id, policy, training seed)
# --------------------------------------------------------------------------------------------


def resolved_settings(env_id: str, policy: str, steps: int | None = None, vec_env: str = "native") -> dict[str, Any]:
    """Everything a run of ``policy`` on ``env_id`` depends on, resolved on the driver: a trained
    agent's settings, budget and tuned settings (:func:`gym_suite.training.recipes.resolved_training`),
    a reference's evaluation arguments. A run is keyed by its digest (:func:`settings_digest`)."""
    if policy in REFERENCES:
        return {"env_id": env_id, "agent": policy, "eval_env_kwargs": recipe_for(env_id).eval_env_kwargs}
    return resolved_training(env_id, policy, steps, vec_env)


def expected_digests(
    ids: Iterable[str],
    policies: Iterable[str],
    budgets: dict | None = None,
    quick: bool = False,
    vec_env: str = "native",
) -> dict[tuple[str, str], str]:
    """The digest of every (id, policy) as the recipes resolve it now: a run is *current* when its
    ``digest`` is its row's (the same settings, budget and tuned settings), whatever its date."""
    budgets = budgets or {}
    found = {}
    for env_id in ids:
        for policy in policies:
            if available(env_id, policy):
                steps = None if policy in REFERENCES else _budget(env_id, policy, budgets, quick)
                found[env_id, policy] = settings_digest(resolved_settings(env_id, policy, steps, vec_env))
    return found


def current(run: dict[str, str], digests: dict[tuple[str, str], str]) -> bool:
    """Whether ``run`` trained (or played) with its row's settings as they are now (``digests``:
    :func:`expected_digests`). A run of other settings stays in the runs file, left out of the table."""
    wanted = digests.get((run["env_id"], run["policy"]))
    return wanted is not None and run.get("digest") == wanted


class RunsFileError(ValueError):
    """A runs file that cannot be read or written as one (named in the message)."""


def read_runs(path: str | os.PathLike, missing_ok: bool = True) -> list[dict[str, str]]:
    """The runs of the runs file ``path`` (``[]`` for a missing one with ``missing_ok``).

    Raises :class:`RunsFileError` naming the file when it is not a runs file: missing (unless
    ``missing_ok``), unreadable, not text, without the header of :data:`RUN_FIELDS`, or with a line
    whose id, episodes or return is not one.
    """
    path = Path(path)
    if not path.exists():
        if missing_ok:
            return []
        raise RunsFileError(f"runs file {str(path)!r}: no such file")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            runs = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise RunsFileError(f"runs file {str(path)!r}: not a readable CSV file ({str(exc)[:200]})") from None
    absent = [name for name in ("env_id", "policy", "train_seed", "episodes", "mean_return") if name not in header]
    if absent:
        raise RunsFileError(f"runs file {str(path)!r}: no header of runs (the columns {absent} are missing)")
    for number, run in enumerate(runs, start=2):
        try:
            if None in run or int(run["episodes"]) < 1 or not math.isfinite(float(run["mean_return"])):
                raise ValueError
        except (TypeError, ValueError):
            raise RunsFileError(
                f"runs file {str(path)!r}, line {number}: not a run (episodes {str(run.get('episodes'))[:20]!r}, "
                f"mean_return {str(run.get('mean_return'))[:20]!r})"
            ) from None
    return runs


@contextlib.contextmanager
def runs_file_lock(path: str | os.PathLike) -> Iterator[None]:
    """Hold the runs file ``path`` for one driver: a second driver on the same file is refused at
    once (:class:`RunsFileError`) instead of doing the same work again and interleaving its lines.
    The lock (``fcntl.flock`` on ``PATH.lock``) is released when the driver ends, however it ends."""
    import fcntl

    lock_path = Path(str(path) + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunsFileError(
                f"runs file {str(path)!r}: another driver is running on it (it holds {str(lock_path)!r}); "
                "wait for it, or give this one another --runs-csv"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def append_run(path: str | os.PathLike, run: dict[str, Any]) -> None:
    """Append one run to the runs file (the header first where the file is new or empty).

    Only the driver writes the file (holding :func:`runs_file_lock`), one run at a time as its
    results arrive; the line is written in one call, so that an interrupted driver leaves whole
    lines. A file whose header is not :data:`RUN_FIELDS` is refused (:class:`RunsFileError`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, RUN_FIELDS)
    if not path.exists() or path.stat().st_size == 0:
        writer.writeheader()
    else:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            header = f.readline().strip()
        if header != ",".join(RUN_FIELDS):
            raise RunsFileError(
                f"runs file {str(path)!r}: its header is not this script's ({','.join(RUN_FIELDS)}); "
                "runs are appended only to a runs file of this version"
            )
    writer.writerow({k: _cell(run.get(k)) for k in RUN_FIELDS})
    with open(path, "a", newline="", encoding="utf-8") as f:
        f.write(buffer.getvalue())
        f.flush()
        os.fsync(f.fileno())


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return format(value, ".6g")
    return str(value)


def _score(
    env_id: str, policy: Any, episodes: int, n_jobs: int, held_out: dict[str, Any], on_training: Any = None
) -> dict[str, Any]:
    """The evaluation part of a run: on the held-out data where the id has some (``held_out``: the
    env arguments that select it), and on the training data."""
    start = time.perf_counter()
    result = evaluate(env_id, policy, episodes=episodes, seed=0, n_jobs=n_jobs, env_kwargs=held_out or None)
    out: dict[str, Any] = {
        "eval_seed": 0,
        "episodes": episodes,
        "mean_return": result.mean,
        "std_return": result.std,
        "mean_length": result.mean_length,
        "eval_seconds": round(time.perf_counter() - start, 1),
    }
    if held_out:
        training_policy = policy if on_training is None else on_training
        out["mean_return_on_training_data"] = evaluate(
            env_id, training_policy, episodes=episodes, seed=0, n_jobs=n_jobs
        ).mean
    return out


def _budget(env_id: str, policy: str, overrides: dict, quick: bool) -> int | None:
    """Training steps per seed: an override, the quick budget, or None (the recipe's, resolved by
    :func:`resolved_settings`)."""
    for key in ((env_id, policy), (None, policy)):
        if key in overrides:
            return overrides[key]
    return QUICK_BUDGET if quick else None


def run_reference(env_id: str, policy: str, episodes: int, n_jobs: int, held_out: dict[str, Any]) -> dict[str, Any]:
    """Play the reference ``policy`` of ``env_id`` (:mod:`gym_suite.references`) on the evaluation episodes."""
    on_training = None
    if policy in ("random", "heuristic"):
        act: Any = policy
        note = ""
    else:
        ref = references(env_id)[policy]
        act, note = ref.policy(), ref.note
        if ref.on_training is not None and held_out:
            on_training = ref.policy(on_training_data=True)
    scores = _score(env_id, act, episodes, n_jobs, held_out, on_training)
    return {"env_id": env_id, "policy": policy, "train_seed": "", "note": note, **scores}


def run_trained(
    env_id: str,
    policy: str,
    seeds: list[int],
    episodes: int,
    n_jobs: int,
    steps: int,
    vec_env: str,
    held_out: dict[str, Any],
) -> Iterable[dict[str, Any]]:
    """Train ``policy`` on ``env_id`` with each seed and score it: one run per seed, as each is done."""
    if policy == "jax-ppo":  # every seed in one vmapped run
        from gym_suite.training.jax import train_ppo

        start = time.perf_counter()
        result = train_ppo(env_id, seed=seeds[0], num_seeds=len(seeds), total_timesteps=steps)
        seconds = time.perf_counter() - start
        if result.seeds != seeds:
            raise ValueError(f"jax-ppo trains consecutive seeds: asked for {seeds}, trained {result.seeds}")
        for seed, act in zip(result.seeds, result.policies):
            yield {
                "env_id": env_id,
                "policy": policy,
                "train_seed": seed,
                "train_steps": result.timesteps,
                "train_seconds": round(seconds, 1),
                "note": f"{len(seeds)} seeds in one vmapped run",
                **_score(env_id, act, episodes, n_jobs, held_out),
            }
        return
    for seed in seeds:
        start = time.perf_counter()
        if policy in ("sb3-ppo", "sb3-dqn"):
            from gym_suite.training.sb3 import SB3Policy, train_sb3

            model = train_sb3(env_id, policy.split("-")[1], steps, seed=seed, vec_env=vec_env)
            act, trained_steps = SB3Policy(model, name=policy), int(model.num_timesteps)
        elif policy == "sb3-recurrent-ppo":
            from gym_suite.training.sb3_recurrent import RecurrentPolicy, train_recurrent_ppo

            model = train_recurrent_ppo(env_id, steps, seed=seed)
            act, trained_steps = RecurrentPolicy(model, name=policy), int(model.num_timesteps)
        elif policy == "reward-model":
            from gym_suite.training.reward_model import train_reward_model

            act, trained_steps = train_reward_model(env_id, steps, seed=seed), steps
        else:
            import shutil

            from gym_suite.training.rllib import RLlibPolicy, train_rllib

            checkpoint_dir = Path(tempfile.mkdtemp(prefix="gym_suite_rllib_"))
            try:
                checkpoint, trained_steps = train_rllib(env_id, steps, seed=seed, checkpoint_dir=checkpoint_dir)
                act = RLlibPolicy.from_checkpoint(checkpoint, env_id)
            finally:
                shutil.rmtree(checkpoint_dir, ignore_errors=True)
        seconds = time.perf_counter() - start
        yield {
            "env_id": env_id,
            "policy": policy,
            "train_seed": seed,
            "train_steps": trained_steps,
            "train_seconds": round(seconds, 1),
            **_score(env_id, act, episodes, n_jobs, held_out),
        }


@dataclass(frozen=True)
class Task:
    """One Ray task of the grid, with everything it depends on: a reference policy (``seeds``
    empty), one training seed of an agent, or JAX PPO's consecutive seeds (one vmapped run).

    ``resolved``: what the driver resolved for the run (:func:`resolved_settings`: the budget, the
    settings, the evaluation's env arguments), ``digest`` its digest, and ``tuned`` the tuned
    settings it trains with (the driver's tuned-recipes file's part for this id and agent): the
    task reads no file or environment variable of the node it runs on.
    """

    env_id: str
    policy: str
    seeds: tuple[int, ...] = ()
    resolved: dict[str, Any] = field(default_factory=dict, compare=False)
    digest: str = ""
    tuned: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def steps(self) -> int | None:
        """Training steps per seed (None for a reference)."""
        return self.resolved.get("steps")

    def __str__(self) -> str:
        seeds = f" seeds {','.join(map(str, self.seeds))}" if self.seeds else ""
        return f"{self.env_id} {self.policy}{seeds}"


def _consecutive(seeds: list[int]) -> list[tuple[int, ...]]:
    """``seeds`` (sorted) in runs of consecutive seeds: JAX PPO vmaps ``seed, seed + 1, ...`` in one run."""
    groups: list[list[int]] = []
    for seed in sorted(seeds):
        if groups and seed == groups[-1][-1] + 1:
            groups[-1].append(seed)
        else:
            groups.append([seed])
    return [tuple(group) for group in groups]


def plan(
    ids: list[str],
    policies: list[str],
    runs: list[dict[str, str]],
    seeds: list[int] | None = None,
    episodes: int = 1000,
    budgets: dict | None = None,
    quick: bool = False,
    force: bool = False,
    vec_env: str = "native",
) -> list[Task]:
    """The tasks of the grid that ``runs`` (the runs file's lines) does not hold yet (all with ``force``).

    A run is held when the file has its (id, policy, training seed) scored on ``episodes``
    evaluation episodes with the settings its row has now (its digest: :func:`current`). JAX PPO
    trains the missing seeds only, consecutive ones in one vmapped run.
    """
    budgets = budgets or {}
    tasks: list[Task] = []
    for env_id in ids:
        for policy in policies:
            if not available(env_id, policy):
                continue
            steps = None if policy in REFERENCES else _budget(env_id, policy, budgets, quick)
            resolved = resolved_settings(env_id, policy, steps, vec_env)
            digest = settings_digest(resolved)
            tuned = {} if policy in REFERENCES else tuned_entry(env_id, policy)
            done = {
                r["train_seed"]
                for r in runs
                if r["env_id"] == env_id
                and r["policy"] == policy
                and int(r["episodes"]) == episodes
                and r.get("digest") == digest
            }
            if policy in REFERENCES:
                if force or "" not in done:
                    tasks.append(Task(env_id, policy, (), resolved, digest, tuned))
                continue
            wanted = seeds if seeds is not None else list(range(TRAINED[policy]))
            todo = wanted if force else [s for s in wanted if str(s) not in done]
            if not todo:
                continue
            if policy == "jax-ppo":  # vmapped seeds are consecutive: one task a run of them
                tasks.extend(Task(env_id, policy, group, resolved, digest, tuned) for group in _consecutive(todo))
            else:
                tasks.extend(Task(env_id, policy, (seed,), resolved, digest, tuned) for seed in todo)
    return tasks


class NodeMismatchError(RuntimeError):
    """The node's gym-suite resolves a task's settings otherwise than the driver did."""


def run_task(task: Task, episodes: int, n_jobs: int) -> tuple[str, list[dict[str, Any]]]:
    """What a Ray task does: run ``task`` with what its driver resolved; returns the node it ran on
    (Ray's node id) and its runs.

    It reads nothing of its node but the installed package: the tuned settings come with the task
    (:func:`gym_suite.training.recipes.given_tuned_recipes`), the reference policies from
    :mod:`gym_suite.references`. The node's package must resolve the task's settings as the
    driver did (the same digest), else the task fails saying so (another gym-suite on the node).
    """
    import ray

    node = ray.get_runtime_context().get_node_id()
    resolved = task.resolved
    with given_tuned_recipes(task.tuned):
        here = resolved_settings(task.env_id, task.policy, resolved.get("steps"), resolved.get("vec_env", "native"))
        if settings_digest(here) != task.digest:
            import gym_suite as installed

            raise NodeMismatchError(
                f"{task}: the gym-suite {installed.__version__} installed on node {node[:12]} resolves the run's "
                f"settings otherwise than the driver did (digest {settings_digest(here)} against {task.digest}): "
                "install the driver's version on every node, or ship it with --runtime-env"
            )
        held_out = resolved["eval_env_kwargs"]
        if task.policy in REFERENCES:
            runs = [run_reference(task.env_id, task.policy, episodes, n_jobs, held_out)]
        else:
            runs = list(
                run_trained(
                    task.env_id,
                    task.policy,
                    list(task.seeds),
                    episodes,
                    n_jobs,
                    resolved["steps"],
                    resolved.get("vec_env", "native"),
                    held_out,
                )
            )
    cpu, today = cpu_name(), date.today().isoformat()
    for one in runs:
        one.update(date=today, cpu=cpu, digest=task.digest)
    return node, runs


class GridError(RuntimeError):
    """Tasks of the grid failed (the others' runs are recorded)."""


class ClusterError(RuntimeError):
    """The cluster cannot run the grid's tasks (a request no node satisfies); nothing was started."""


def connect(address: str | None, runtime_env: dict[str, Any] | None = None) -> str:
    """Join the Ray cluster at ``address`` (``RAY_ADDRESS`` when None), or start a local Ray when
    neither is given; the address joined ("local" for a new local Ray). ``runtime_env``: Ray's
    runtime environment of the job (``working_dir``, ``py_modules``, ``pip``, ``env_vars``)."""
    from gym_suite.training import connect_ray

    return connect_ray(address, runtime_env=runtime_env)


def check_placeable(requests: dict[str, dict[str, float]]) -> None:
    """Raise :class:`ClusterError` at once for a task's request that no live node of the cluster
    can satisfy (``requests``: policy -> Ray resources, ``CPU`` included), instead of waiting for a
    node that never comes. Ray's autoscaler, where one runs, may add nodes later: it is named in
    the message as the way to run such a request."""
    import ray

    nodes = [node["Resources"] for node in ray.nodes() if node.get("Alive")]
    problems = []
    for policy, wanted in requests.items():
        if not any(all(resources.get(name, 0.0) >= amount for name, amount in wanted.items()) for resources in nodes):
            have = sorted({name for resources in nodes for name in resources if not name.startswith("node:")})
            problems.append(
                f"{policy} tasks ask for {wanted}, which no node has: the {len(nodes)} node(s) have at most "
                + ", ".join(
                    f"{name}={max(resources.get(name, 0.0) for resources in nodes):g}"
                    for name in sorted(wanted)
                    if name in have
                )
                + (f" (and none has {sorted(set(wanted) - set(have))})" if set(wanted) - set(have) else "")
            )
    if problems:
        raise ClusterError(
            "the cluster cannot place these tasks:\n"
            + "\n".join(problems)
            + "\n(ask for less with --cpus/--resources, or start a node that has it)"
        )


def run(
    ids: list[str],
    policies: list[str],
    runs_csv: str | os.PathLike,
    seeds: list[int] | None = None,
    episodes: int = 1000,
    n_jobs: int = -1,
    budgets: dict | None = None,
    quick: bool = False,
    vec_env: str = "native",
    force: bool = False,
    address: str | None = None,
    cpus: float = 1,
    resources: dict[str | None, dict[str, float]] | None = None,
    runtime_env: dict[str, Any] | None = None,
) -> int:
    """Run what ``runs_csv`` does not hold yet (everything with ``force``) as Ray tasks; the number of runs added.

    Every task asks Ray for ``cpus`` CPUs (its evaluation runs on that many processes unless
    ``n_jobs`` is positive) and for the custom ``resources`` of its policy (``resources[policy]``,
    then ``resources[None]`` for every policy), on the cluster at ``address`` (:func:`connect`).
    The driver resolves everything a task depends on (:class:`Task`), holds the runs file for
    itself (:func:`runs_file_lock`) and appends each task's runs to it as the task finishes: an
    interrupted grid loses only the tasks that were running, and the same command resumes it.
    Raises :class:`ClusterError` before any task starts if the cluster cannot place one, and
    :class:`GridError` after the other tasks' runs are recorded if some tasks failed.
    """
    with runs_file_lock(runs_csv):
        tasks = plan(ids, policies, read_runs(runs_csv), seeds, episodes, budgets, quick, force, vec_env)
        if not tasks:
            return 0
        import ray

        joined = connect(address, runtime_env)
        # the tasks' code travels with them: this script (and its folder's helper) are not installed
        # on the cluster's nodes, the gym_suite package is
        for name in {__name__, cpu_name.__module__}:
            if name != "__main__":
                ray.cloudpickle.register_pickle_by_value(sys.modules[name])
        resources = resources or {}
        requests = {t.policy: {"CPU": cpus, **resources.get(None, {}), **resources.get(t.policy, {})} for t in tasks}
        check_placeable(requests)
        jobs = n_jobs if n_jobs > 0 else max(1, int(cpus))
        remote = ray.remote(run_task)
        pending = {
            remote.options(num_cpus=cpus, resources={**resources.get(None, {}), **resources.get(t.policy, {})}).remote(
                t, episodes, jobs
            ): t
            for t in tasks
        }
        print(f"{len(tasks)} tasks on Ray ({joined})", file=sys.stderr, flush=True)
        added, failed = 0, []
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            task = pending.pop(ready[0])
            try:
                node, runs = ray.get(ready[0])
            except Exception as exc:  # the task's error, raised again in the driver by Ray
                failed.append(f"{task}: {exc}")
                print(f"{task} failed: {exc}", file=sys.stderr, flush=True)
                continue
            for one in runs:
                append_run(runs_csv, one)
                added += 1
                print(
                    f"{one['env_id']:<13} {LABELS[one['policy']]:<18} seed {one['train_seed'] if one['train_seed'] != '' else '-':>3}"
                    f"  return {one['mean_return']:10.3f}  train {one.get('train_seconds') or 0:6.1f} s"
                    f"  eval {one['eval_seconds']:5.1f} s  node {node[:12]}",
                    file=sys.stderr,
                    flush=True,
                )
    if failed:
        raise GridError(f"{len(failed)} of {len(tasks)} tasks failed:\n" + "\n".join(failed))
    return added


# --------------------------------------------------------------------------------------------
# The summary
# --------------------------------------------------------------------------------------------


@dataclass
class Summary:
    """One row of the table (``seeds`` 0 for a reference policy)."""

    env_id: str
    policy: str
    seeds: int
    iqm: float
    ci_low: float
    ci_high: float
    worst_seed: float | None
    diverged: int | None
    eval_episodes: int
    on_training_data: float | None = None
    train_steps: int | None = None
    train_seconds: float | None = None
    note: str = ""
    normalized: float | None = None
    normalized_ci_low: float | None = None
    normalized_ci_high: float | None = None
    reference: str = ""
    command: str = ""


def iqm_interval(seed_scores: np.ndarray, reps: int = BOOTSTRAP_REPS, seed: int = 0) -> tuple[float, float, float]:
    """The IQM of the seeds' scores and its 95 % bootstrap interval, with rliable."""
    from rliable import library as rly
    from rliable import metrics

    scores = {"policy": np.asarray(seed_scores, dtype=float).reshape(-1, 1)}
    # rliable 1.2's StratifiedBootstrap draws its resamples from numpy's global generator, whatever
    # random_state says: seed that one for the call (and put it back) so that the interval repeats
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        with warnings.catch_warnings():  # arch 7 announces a new default generator
            warnings.simplefilter("ignore", FutureWarning)
            point, interval = rly.get_interval_estimates(
                scores,
                lambda x: np.array([metrics.aggregate_iqm(x)]),
                reps=reps,
                confidence_interval_size=CONFIDENCE,
                random_state=np.random.RandomState(seed),
            )
    finally:
        np.random.set_state(saved)
    return float(point["policy"][0]), float(interval["policy"][0, 0]), float(interval["policy"][1, 0])


def summarize(
    runs: list[dict[str, str]],
    episodes: int,
    reps: int = BOOTSTRAP_REPS,
    digests: dict[tuple[str, str], str] | None = None,
) -> list[Summary]:
    """The table's rows, from the runs that played ``episodes`` evaluation episodes with their
    row's settings as they are now (``digests``, :func:`expected_digests`; default: every id and
    policy with the recipes' budgets)."""
    if digests is None:
        digests = expected_digests(gym_suite.ENV_IDS, POLICIES)
    groups: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in runs:
        if int(r["episodes"]) == episodes and current(r, digests):
            groups.setdefault((r["env_id"], r["policy"]), []).append(r)
    rows: list[Summary] = []
    for env_id in gym_suite.ENV_IDS:
        random_rows = groups.get((env_id, "random"))
        random_score = float(random_rows[-1]["mean_return"]) if random_rows else None
        for policy in POLICIES:
            found = groups.get((env_id, policy))
            if not found:
                continue
            if policy in REFERENCES:
                last = found[-1]  # a rerun replaces what was there
                mean, std = float(last["mean_return"]), float(last["std_return"])
                half = 1.959964 * std / math.sqrt(episodes)
                ref = references(env_id).get(policy)
                note = ref.note if ref is not None else last.get("note", "")
                rows.append(
                    Summary(
                        env_id,
                        policy,
                        0,
                        mean,
                        mean - half,
                        mean + half,
                        None,
                        None,
                        episodes,
                        float(last["mean_return_on_training_data"]) if last["mean_return_on_training_data"] else None,
                        note=note,
                        command=ref.command if ref else f"{COMMAND} --ids {env_id} --policies {policy}",
                    )
                )
                continue
            by_seed = {r["train_seed"]: r for r in found}  # a rerun of a seed replaces it
            scores = np.array([float(r["mean_return"]) for r in by_seed.values()])
            iqm, low, high = iqm_interval(scores, reps)
            steps = {int(r["train_steps"]) for r in by_seed.values() if r["train_steps"]}
            seconds = [float(r["train_seconds"]) for r in by_seed.values() if r["train_seconds"]]
            on_training = [
                float(r["mean_return_on_training_data"]) for r in by_seed.values() if r["mean_return_on_training_data"]
            ]
            rows.append(
                Summary(
                    env_id,
                    policy,
                    len(scores),
                    iqm,
                    low,
                    high,
                    float(scores.min()),
                    int((scores < random_score).sum()) if random_score is not None else None,
                    episodes,
                    float(metrics_iqm(on_training)) if on_training else None,
                    max(steps) if steps else None,
                    float(np.median(seconds)) if seconds else None,
                    note=next((r["note"] for r in by_seed.values() if r.get("note")), ""),
                    command=f"{COMMAND} --ids {env_id} --policies {policy} --seeds "
                    f"{min(map(int, by_seed))}-{max(map(int, by_seed))}",
                )
            )
    _normalize(rows)
    return rows


def metrics_iqm(values: list[float]) -> float:
    from rliable import metrics

    return float(metrics.aggregate_iqm(np.asarray(values, dtype=float).reshape(-1, 1)))


def _normalize(rows: list[Summary]) -> None:
    """(score - random) / (optimum - random), the optimum or, failing it, the best known policy."""
    by_key = {(r.env_id, r.policy): r for r in rows}
    for row in rows:
        random_row = by_key.get((row.env_id, "random"))
        top = by_key.get((row.env_id, "optimum")) or by_key.get((row.env_id, "best-known"))
        if random_row is None or top is None or top.iqm == random_row.iqm:
            continue
        span = top.iqm - random_row.iqm
        label = row_label(top.env_id, top.policy)
        row.reference = f"{label} ({top.note})" if top.note else label
        row.normalized = (row.iqm - random_row.iqm) / span
        row.normalized_ci_low = (row.ci_low - random_row.iqm) / span
        row.normalized_ci_high = (row.ci_high - random_row.iqm) / span


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Replace ``path`` by ``data`` whole: written to a temporary file beside it, then renamed over it,
    so that a reader sees the old file or the new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_csv(rows: list[Summary], path: str | os.PathLike) -> None:
    """The table as CSV, the file replaced whole."""
    f = io.StringIO(newline="")
    writer = csv.DictWriter(f, SUMMARY_FIELDS)
    writer.writeheader()
    for r in rows:
        writer.writerow(
            {
                "env_id": r.env_id,
                "policy": r.policy,
                "seeds": r.seeds,
                "iqm": _cell(r.iqm),
                "ci_low": _cell(r.ci_low),
                "ci_high": _cell(r.ci_high),
                "worst_seed": _cell(r.worst_seed),
                "diverged": _cell(r.diverged),
                "normalized": _cell(r.normalized),
                "normalized_ci_low": _cell(r.normalized_ci_low),
                "normalized_ci_high": _cell(r.normalized_ci_high),
                "reference": r.reference,
                "eval_episodes": r.eval_episodes,
                "on_training_data": _cell(r.on_training_data),
                "train_steps": _cell(r.train_steps),
                "train_seconds": _cell(r.train_seconds),
                "command": r.command,
            }
        )
    write_atomic(path, f.getvalue())


def _num(x: float | None, digits: int = 2) -> str:
    if x is None:
        return ""
    if abs(x) >= 10_000:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def to_markdown(rows: list[Summary], machine: dict[str, Any], notes: list[str]) -> str:
    episodes = sorted({r.eval_episodes for r in rows})
    lines = [
        "---",
        "hide:",
        "  - navigation  # the table takes the page's whole width",
        "  - toc",
        "---",
        "",
        "# Baselines",
        "",
        "Your own agent on this table, on the same evaluation episodes: `gym_suite.score(env_id, policy)` "
        "or `gym-suite evaluate ID --against-table` ([How to report your agent]"
        "(training/evaluate.md#how-to-report-your-agent)).",
        "",
        "Reproduce with",
        "",
        "```bash",
        'pip install -e ".[sb3,jax,baselines]"',
        COMMAND,
        "```",
        "",
        "(it runs only what `docs/baselines_runs.csv` does not hold yet; each row's own command is in "
        "`docs/baselines.csv`).",
        "",
        "**Running the grid on Ray.** Every run (an id, a policy, a training seed; JAX PPO's consecutive "
        "missing seeds of an id together, one vmapped run) is a [Ray](https://docs.ray.io) task asking for "
        "`--cpus` CPUs (1 by default; its evaluation runs on that many processes). Without an address the "
        "script starts a new Ray on this machine, using every core. The driver resolves everything a run "
        "depends on (the recipe with its tuned settings, the budget, the env arguments, the evaluation "
        "episodes) and hands it to the task as arguments: a task reads no file and no environment variable "
        "of the node it lands on, and the reference policies ship with the package "
        "(`gym_suite.references`). On a cluster, start Ray on each machine (the head: "
        "`ray start --head --port=6379`; every other one: `ray start --address=HEAD_IP:6379`), then run "
        "the driver on a machine with this repository. Its nodes get gym-suite one of two ways:",
        "",
        '- **installed on every node**: `pip install "gym-suite[sb3,jax,baselines]"` (the version of the '
        "driver) on each machine, then",
        "",
        "  ```bash",
        f"  RAY_ADDRESS=HEAD_IP:6379 {COMMAND} --ids heartpole-v1 --policies sb3-ppo --seeds 0-9",
        "  ```",
        "",
        "- **shipped by Ray** with the job's [runtime environment](https://docs.ray.io/en/latest/ray-core/"
        "handling-dependencies.html) (`--runtime-env`, JSON), to nodes that have Ray and nothing of ours:",
        "",
        "  ```bash",
        f'  {COMMAND} --address HEAD_IP:6379 --runtime-env \'{{"pip": ["gym-suite[sb3,jax,baselines]"]}}\'',
        f'  {COMMAND} --address HEAD_IP:6379 --runtime-env \'{{"py_modules": ["gym_suite"]}}\'  # this checkout\'s package',
        "  ```",
        "",
        "A node whose gym-suite resolves a run's settings otherwise than the driver's (another version) "
        "fails that task, saying so, instead of recording a run of other settings. With `ray job submit` "
        "the driver runs on the head node: `ray job submit --address http://HEAD_IP:8265 --working-dir . -- "
        f"{COMMAND}` writes the runs file and the table into the job's copy of the repository on the head "
        "node, so give `--runs-csv` and the outputs a path of the head's that you keep. "
        "`--resources POLICY:NAME=AMOUNT` makes a policy's tasks ask for a custom resource, so that they "
        "run only on the nodes started with it (`ray start ... --resources='{\"big_node\": 1}'`); a request "
        "that no node of the cluster can satisfy, or an address where no cluster answers, is an error at "
        "once, before any task starts.",
        "",
        "**Runs and resuming.** The driver alone writes `docs/baselines_runs.csv` and holds it while it "
        "runs (a lock on `docs/baselines_runs.csv.lock`: a second driver on the same file is refused). Each run records a digest of the settings it "
        "was trained with (`digest`); a run counts for the table when its digest is its row's now, so a "
        "recipe or a tuned setting that changes makes its row's runs stale (they stay in the file, left "
        "out of the table, and run again) whatever their date. An interrupted grid (the driver stopped, a "
        "machine lost) loses only the tasks that were running: the same command runs the missing runs "
        "and nothing else (`--force` runs everything again). The table is made from the file, "
        f"`{COMMAND} --summarize`, and its outputs are replaced whole, and never from a runs file that is "
        "missing, unreadable or without current runs (an error, nothing written). Superseded runs (an "
        "earlier recipe's) stay in the file, their note saying so.",
        "",
        f"Runs on {', '.join(machine['cpus'])}; {machine['versions']} (`docs/baselines_machine.json`). "
        "Training times depend on the CPU and on what else the machine did; a seed's return may differ on "
        "another CPU (torch's kernels differ), which is why every trained row is several seeds.",
        "",
        f"Every policy plays the same {'/'.join(map(str, episodes))} evaluation episodes (episode *i* reset "
        "with seed *i*); trained agents act greedily (the most probable action, or the mean). A trained row "
        "is several training seeds, each scored by its mean return over those episodes: the row gives the "
        "interquartile mean (IQM) over seeds with its 95 % stratified-bootstrap interval "
        f"([rliable](https://github.com/google-research/rliable), {BOOTSTRAP_REPS:,} resamples), the worst "
        "seed, and how many seeds *diverged* (scored below the random policy); no seed is left out. A "
        "reference row (no training) gives the mean over the episodes and the 95 % interval of that mean. "
        "*Normalized*: (score − random) / (reference − random), 0 for the random policy and 1 for the id's "
        "reference: its optimum where that is computed exactly (no policy does better in expectation: "
        "example-v0, push-v0, target-v0, target-v1), else an *oracle* that reads what no agent sees (push-v1: "
        "each notification's true open probability, so an agent may score above it) or the best policy "
        "known (heartpole: dynamic programming on a grid, which a finer grid beats a little); each reference "
        "row is named by what it is. Budget: environment steps of training per "
        "seed; train: median wall time per seed (for JAX PPO, the one vmapped run of all seeds, compile "
        "included).",
        "",
        "Where an environment replays data (push-v0, push-v1), every policy is scored on the held-out test log; the "
        "column *on training data* gives the same policies on the training log, so that memorisation shows "
        "as a gap.",
        "",
        "**Protocol: tuning and evaluation episodes are disjoint.** The table reports evaluation episodes "
        "0-999 only, and nothing in it is chosen by its score there: a policy found by a search is searched "
        "on other episodes (heartpole-v1's best known policy on episodes seeded 10,000-10,999, "
        "`gym_suite/references/heartpole_v1_reference.py`), and a recipe's settings are compared on tuning "
        "episodes seeded 100,000 onwards (heartpole-v1's JAX PPO recipe, first chosen by its scores on "
        "episodes 0-999, is re-checked there by `gym-suite/analyses/heartpole_v1_tuning.py`, and no "
        "variant does better: no discounting with the two weeks' end terminal, which SB3 PPO shares, 452.4 against 442.3 with "
        "gamma 0.999, the 32 x 32 network against 64 x 64's 448.2, rewards x 0.01 against x 0.1's 447.9; 3 "
        "training seeds each). "
        "Every training seed run with a row's settings is reported (0, 1, ...), none left out or rerun for a better "
        "score; the runs of a row's earlier recipes stay in `docs/baselines_runs.csv`, their note saying "
        "*superseded*, scored on the same evaluation episodes and out of the table. Recipes "
        "set before this protocol were compared on evaluation episodes: on example-v0, heartpole-v0 and "
        "target-v0 their agents score the optimum, which no choice can inflate; push-v0's JAX PPO learning "
        "rate (1e-4 against 3e-4) was chosen on its test log's evaluation episodes and is not re-checked.",
        "",
        "**Tuning a recipe.** `gym-suite/analyses/tune_recipe.py` searches an agent's settings for one id "
        "with [Ray Tune](https://docs.ray.io/en/latest/tune/) (SB3 PPO or JAX PPO; local Ray or "
        "`RAY_ADDRESS`, as above). Each trial trains on training seeds 100,000 onwards (the table's are "
        "0, 1, ...) and is scored by its greedy mean return on tuning episodes seeded 100,000 onwards, on "
        "the training log where an id replays data (never the held-out test log); the first trial is the "
        "recipe's own settings. The best trial's settings, with how they were chosen (date, scores of the "
        "best trial and of the recipe, trials, seeds, episodes, command), go to "
        "`gym_suite/training/tuned_recipes.json` (or the file of `GYM_SUITE_TUNED_RECIPES`), which the "
        "recipes read over their own (on the driver, which hands them to its tasks: the trials, too, get the "
        "driver's tuned settings as arguments); the runs of that id and agent made with the earlier settings "
        "have another digest, are left out of the table and run again with the tuned recipe:",
        "",
        "```bash",
        "python gym-suite/analyses/tune_recipe.py --id push-v1 --agent sb3-ppo --trials 16 --seeds 3",
        f"{COMMAND} --ids push-v1 --policies sb3-ppo",
        "```",
        "",
        "| environment | policy | seeds | return: IQM [95 % CI] | worst seed | diverged | normalized [95 % CI] "
        "| on training data | budget (steps) | train (s) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    described = []  # what each reference row is: under the table, so that its rows stay one line each
    for r in rows:
        label = row_label(r.env_id, r.policy)
        if r.note and r.policy in REFERENCES:
            described.append(f"- `{r.env_id}` {label}: {r.note} (`{r.command}`)")
        norm = (
            ""
            if r.normalized is None
            else f"{r.normalized:.3f} [{r.normalized_ci_low:.3f}, {r.normalized_ci_high:.3f}]"
        )
        lines.append(
            f"| `{r.env_id}` | {label} | {r.seeds or ''} | {_num(r.iqm)} [{_num(r.ci_low)}, {_num(r.ci_high)}] | "
            f"{_num(r.worst_seed)} | {'' if r.diverged is None else r.diverged} | {norm} | {_num(r.on_training_data)} | "
            f"{'' if r.train_steps is None else f'{r.train_steps:,}'} | "
            f"{'' if r.train_seconds is None else f'{r.train_seconds:.0f}'} |"
        )
    if described:
        lines += ["", "The reference rows:", "", *described]
    if notes:
        lines += ["", "Notes:", "", *[f"- {note}" for note in notes]]
    lines += [
        "",
        "![Normalized IQM and its 95 % interval over training seeds, per id and trained agent]"
        "(img/baselines_normalized.png)",
        "",
        "The learning curves of JAX PPO and SB3 PPO on heartpole-v1, seeds as a band: "
        "[Training speed](training-speed.md).",
    ]
    return "\n".join(lines) + "\n"


HEADLINE_POLICIES = (
    "heuristic",
    "supervised",
    "best-known",
    "sb3-ppo",
    "sb3-dqn",
    "rllib-ppo",
    "jax-ppo",
    "sb3-recurrent-ppo",
    "reward-model",
    "optimum",
)
README_START = "<!-- baselines-headline:start -->"
README_END = "<!-- baselines-headline:end -->"


def _steps(steps: float) -> str:
    """A training budget in few characters: 20k, 1.2M."""
    if steps >= 1e6:
        return f"{steps / 1e6:.1f}M".replace(".0M", "M")
    return f"{steps / 1e3:.0f}k"


def headline_markdown(table: list[dict[str, str]]) -> str:
    """README's table: the normalized score of every id and policy, from ``docs/baselines.csv``'s rows.

    Trained policies: the normalized IQM over seeds, its 95 % interval, the seeds and the
    training steps a seed (diverged seeds counted); references: the normalized mean, and for the
    reference the table is normalized by, what it is (optimum, oracle, grid DP).
    """
    by_key = {(r["env_id"], r["policy"]): r for r in table}
    policies = [p for p in HEADLINE_POLICIES if any(r["policy"] == p for r in table)]
    ids = [i for i in gym_suite.ENV_IDS if any(r["env_id"] == i for r in table)]
    header = {"optimum": "reference", "best-known": "searched policy"}
    lines = [
        "| id | " + " | ".join(header.get(p, LABELS[p].split(":")[0]) for p in policies) + " |",
        "|---|" + "---:|" * len(policies),
    ]
    for env_id in ids:
        cells = []
        for policy in policies:
            r = by_key.get((env_id, policy))
            if r is None or not r["normalized"]:
                cells.append("")
            elif int(r["seeds"] or 0) > 0:
                diverged = f", {r['diverged']} diverged" if r["diverged"] not in ("", "0") else ""
                steps = f", {_steps(float(r['train_steps']))} steps" if r.get("train_steps") else ""
                cells.append(
                    f"{float(r['normalized']):.2f} [{float(r['normalized_ci_low']):.2f}, "
                    f"{float(r['normalized_ci_high']):.2f}] ({r['seeds']} seeds{steps}{diverged})"
                )
            elif policy in header:  # what the reference is: an optimum, an oracle, the best policy known
                cells.append(f"{float(r['normalized']):.2f} ({row_label(env_id, policy)})")
            else:
                cells.append(f"{float(r['normalized']):.2f}")
        lines.append(f"| `{env_id}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def update_readme(path: str | os.PathLike, table: list[dict[str, str]]) -> bool:
    """Replace README's headline table between its markers; False when it has none."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return False
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    write_atomic(path, head + README_START + "\n" + headline_markdown(table) + README_END + tail)
    return True


def machine_record(runs: list[dict[str, str]]) -> dict[str, Any]:
    packages = (
        "gymnasium",
        "numpy",
        "torch",
        "stable-baselines3",
        "sb3-contrib",
        "ray",
        "jax",
        "rejax",
        "rliable",
        "scikit-learn",
    )
    return {
        "cpus": sorted({r["cpu"] for r in runs if r.get("cpu")}) or [cpu_name()],
        "dates": sorted({r["date"] for r in runs if r.get("date")}),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "versions": versions(packages),
    }


def push_note() -> str:
    """The Bayes-optimal accuracy of push-v0's logs, from the generator's open probabilities: in
    expectation over the labels, and on the labels each log happens to hold."""
    from gym_suite.envs.push_log import load_log

    def ret(accuracy: float) -> str:
        return f"{100 * (2 * accuracy - 1):.2f}"

    parts = []
    for split in ("train", "test"):
        log = load_log(split=split)
        p_open, opened = np.asarray(log.p_open), np.asarray(log.labels) == 1
        right = np.maximum(p_open, 1.0 - p_open)  # the Bayes-optimal decision's chance to be right
        expected = float(right.mean())
        spread = float(np.sqrt((right * (1.0 - right)).sum()) / len(right))  # s.d. of the realized accuracy
        realized = float(((p_open >= 0.5) == opened).mean())
        parts.append(
            f"the {split} log ({len(right):,} rows): {expected:.1%} in expectation (return {ret(expected)} per "
            f"100), {realized:.1%} on its drawn labels (return {ret(realized)}; the labels' luck has a standard "
            f"deviation of {200 * spread:.2f})"
        )
    return (
        "`push-v0`: accuracy = (return / 100 + 1) / 2 for 100-notification windows. The Bayes-optimal policy "
        "(the generator's open probabilities) is right on " + "; on ".join(parts) + ". The optimum row is "
        "that policy over the evaluation windows, which weigh the rows unequally, hence its own figure. No "
        "policy can beat it in expectation: a score above it on the data an agent trained on is memorised noise."
    )


def push_v1_note() -> str:
    """push-v1's return, and its hindsight bound on the test log (for context, above the optimum)."""
    table = _reference_module("push_v1_optimum").exact_table("test", 2)
    return (
        "`push-v1`: the return is the expected opens of a user-day (2 deliveries a day). The reference is an "
        "oracle, not a bound: the online dynamic program that knows the true open probability of the notification "
        "at hand (its user's hidden offset included, which no agent sees), taking a day's notifications as "
        f"independent draws, {table['optimum']:.3f} over every user-day of the test log; a policy of the "
        "observation alone, the same program on the open probability expected from the observation, scores 1.505 "
        "there, +0.034 ± 0.007 a day over the heuristic on the evaluation days "
        "(`python gym-suite/analyses/push_v1_headroom.py`): the room above the heuristic is there to learn, and a "
        "learner that models the reward from explored days and plans with the same program takes most of it "
        "(the *reward model + planning* row, `gym_suite.training.reward_model`). The "
        "hindsight bound (the day's two likeliest "
        f"notifications, known in advance), {table['hindsight']:.3f}, is above what any policy deciding in order "
        "can reach (`python -m gym_suite.references.push_v1_optimum`). On the training log an agent can recognise "
        "a day it trained on from its first notification and so know the rest of it, which the test log does not "
        "reward; a score above the oracle there is not by itself a sign of it (the policy of the observation "
        "scores 1.516 on the training log, the oracle 1.503). The heuristic is "
        "the strongest simple rule found: points for what makes a notification likely to be opened against a bar "
        "that falls as the day runs out, its two numbers chosen on the training log alone "
        "(`python -m gym_suite.references.push_v1_rule`); it is the row a trained agent has to beat. Supervised "
        "learning of the open with the oracle's thresholds is at 0.97."
    )


def heartpole_v1_note(sb3_seeds: int) -> str:
    """heartpole-v1: the recipe both PPOs share (``sb3_seeds``: the SB3 PPO row's seeds), and the best
    known policy paired against the previous one."""
    reference = _reference_module("heartpole_v1_reference")
    seeds = np.arange(1000)
    uniforms = reference.episode_uniforms(seeds)
    new = reference.play(reference.time_aware_policy(*reference.BEST_TIME_AWARE), seeds, uniforms)["return"]
    old = reference.play(reference.threshold_policy(*reference.BEST_THRESHOLDS), seeds, uniforms)["return"]
    diff = new - old
    parameters = ", ".join(
        f"{name} {value:.3g}" for name, value in zip(reference.TIME_AWARE_NAMES, reference.BEST_TIME_AWARE)
    )
    return (
        "`heartpole-v1`: SB3 PPO and JAX PPO train with the same recipe: updates of 8 copies x 512 steps, "
        "minibatches of 256, 10 epochs, learning rate 3e-4, no discounting (gamma 1) with the end of the two "
        "weeks terminal for the learner (the observation shows the time), observations standardized, 1.2M "
        "steps (`gym_suite/training/recipes.py`, `gym_suite.training.jax.PPO_RECIPES`). They differ in the "
        "network (SB3 64 x 64, JAX 32 x 32) and the training rewards' scale (0.1 and 0.01) only: rejax clips "
        "the value function's change at clip_eps in reward units and Stable-Baselines3 does not. "
        f"{_sb3_gamma_one(sb3_seeds)} The best known policy is the best of a family of time-aware threshold policies "
        f"(`heartpole_v1_reference.time_aware_policy`: {parameters}) "
        "found by a random search and a coordinate refinement on episodes seeded 10,000-10,999; on the "
        f"evaluation episodes it scores {diff.mean():+.2f} ± {diff.std(ddof=1) / np.sqrt(len(diff)):.2f} "
        f"(paired, standard error) over the previous best known policy, the threshold policy without the "
        f"clock ({old.mean():.2f})."
    )


def _sb3_gamma_one(sb3_seeds: int) -> str:
    """What is known of SB3 PPO with heartpole-v1's shared recipe beyond the table's row."""
    side_by_side = ROOT / "docs" / "training" / "heartpole_v1_jax_vs_sb3.json"
    record = json.loads(side_by_side.read_text(encoding="utf-8"))
    finals = ", ".join(f"{run['final'][0]:.1f}" for run in record["sb3"])
    text = (
        f"The same settings at {record['budget'] / 1e6:.1f}M steps (`train_jax_vs_sb3.py`, "
        f"`docs/training/heartpole_v1_jax_vs_sb3.json`, seeds {', '.join(str(r['seed']) for r in record['sb3'])}) "
        f"scored {finals} on these evaluation episodes."
    )
    if sb3_seeds:
        return text
    return (
        "No SB3 PPO run of this recipe had finished when this table was made (the machine was shared), so the "
        f"row is missing: `{COMMAND} --ids heartpole-v1 --policies sb3-ppo --seeds 0-4` runs it. " + text + " The "
        "runs of the previous recipe (gamma 0.999, bootstrapped past the end, 1.5M steps: 435.3 to 450.1 over "
        "5 seeds) stay in `docs/baselines_runs.csv`, left out of the table, since they compare the libraries "
        "on different recipes."
    )


#: The figure's left edge: 0 is the random policy; intervals that reach further are cut and labelled.
X_LOW = -0.5


def plot_normalized(rows: list[Summary], path: str | os.PathLike) -> None:
    """rliable's interval plot: the normalized IQM and its interval, per id (panels) and policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = [i for i in gym_suite.ENV_IDS if any(r.env_id == i and r.seeds for r in rows)]
    trained = [p for p in TRAINED if any(r.policy == p and r.seeds for r in rows)]
    fig, axes = plt.subplots(
        1, len(ids), figsize=(3.2 * len(ids), 0.5 * len(trained) + 1.6), sharey=True, squeeze=False
    )
    colors = dict(zip(TRAINED, ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860")))
    for ax, env_id in zip(axes[0], ids):
        for y, policy in enumerate(trained):
            r = next((r for r in rows if r.env_id == env_id and r.policy == policy and r.seeds), None)
            if r is None or r.normalized is None:
                continue
            low = max(r.normalized_ci_low, X_LOW)  # a diverged seed's interval runs far left: cut, and say where
            ax.barh(y, r.normalized_ci_high - low, left=low, height=0.6, color=colors[policy], alpha=0.75)
            if r.normalized_ci_low < X_LOW:
                ax.annotate(
                    f"to {r.normalized_ci_low:,.1f}", (X_LOW, y), xytext=(2, 9), textcoords="offset points", fontsize=7
                )
            ax.vlines(max(r.normalized, X_LOW), y - 0.3, y + 0.3, color="black", linewidth=1.5)
        ax.set_xlim(X_LOW, 1.1)
        ax.axvline(1.0, color="grey", linestyle="--", linewidth=0.8)
        ax.axvline(0.0, color="grey", linestyle=":", linewidth=0.8)
        ax.set_title(env_id, fontsize=10)
        ax.set_xlabel("normalized IQM")
        ax.set_yticks(range(len(trained)), [LABELS[p] for p in trained])
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle("Normalized score over training seeds: IQM (line) and 95 % bootstrap interval (bar)", fontsize=10)
    fig.tight_layout()
    picture = io.BytesIO()
    fig.savefig(picture, dpi=110, format="png")
    plt.close(fig)
    write_atomic(path, picture.getvalue())


# --------------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------------


def _parse_budget(text: str) -> tuple[tuple[str | None, str], int]:
    """``[ID:]POLICY=STEPS`` -> ``((id or None, policy), steps)``."""
    try:
        target, steps_text = text.rsplit("=", 1)
        env_id, _, policy = target.rpartition(":")
        steps = int(steps_text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: expected [ID:]POLICY=STEPS, e.g. sb3-ppo=50000") from None
    if policy not in TRAINED:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: policy must be one of {list(TRAINED)}")
    if env_id and env_id not in gym_suite.ENV_IDS:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: unknown id {env_id!r}; ids are {list(gym_suite.ENV_IDS)}")
    if steps < 1:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: steps must be positive")
    return (env_id or None, policy), steps


def _cpus(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--cpus {text!r}: expected a positive number of CPUs") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"--cpus {text!r}: expected a positive number of CPUs")
    return value


def _parse_resource(text: str) -> tuple[str | None, str, float]:
    """``[POLICY:]NAME=AMOUNT`` -> ``(policy or None, name, amount)``."""
    scope, _, item = text.rpartition(":")
    name, sep, amount = item.partition("=")
    try:
        value = float(amount)
    except ValueError:
        value = math.nan
    if not sep or not name or not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(
            f"--resources {text!r}: expected [POLICY:]NAME=AMOUNT with a positive amount, e.g. sb3-ppo:big_node=1"
        )
    if scope and scope not in POLICIES:
        raise argparse.ArgumentTypeError(f"--resources {text!r}: policy must be one of {list(POLICIES)}")
    return scope or None, name, value


def runtime_env_json(text: str) -> dict[str, Any]:
    """``--runtime-env``: Ray's runtime environment as JSON (:func:`gym_suite.training.runtime_env_from_json`)."""
    from gym_suite.training import runtime_env_from_json

    try:
        return runtime_env_from_json(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _csv_list(choices):
    def parse(text: str) -> list[str]:
        items = [t for t in text.split(",") if t]
        bad = [t for t in items if t not in choices]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"unknown {bad or text!r}; choose from {list(choices)}")
        return items

    return parse


def _seeds(text: str) -> list[int]:
    """``0-4`` or ``0,2,4`` -> a sorted list of distinct non-negative seeds."""
    seeds: set[int] = set()
    try:
        for part in text.split(","):
            low, dash, high = part.strip().partition("-")
            first, last = int(low), int(high) if dash else int(low)
            if first < 0 or last < first or last - first >= 1000:
                raise ValueError
            seeds.update(range(first, last + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seeds {text!r}: expected seeds like 0-4 or 0,2,4 (non-negative)") from None
    return sorted(seeds)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=COMMAND,
        description="References and agents trained over several seeds on every gym-suite id: per-seed runs, "
        "then a table (IQM and 95 % bootstrap intervals over seeds, normalized scores), a CSV and a figure.",
    )
    parser.add_argument(
        "--ids",
        type=_csv_list(gym_suite.ENV_IDS),
        default=list(gym_suite.ENV_IDS),
        help="comma-separated ids (default: every registered id)",
    )
    parser.add_argument(
        "--policies",
        type=_csv_list(POLICIES),
        default=[p for p in POLICIES if p != "rllib-ppo"],
        help=f"comma-separated policies among {','.join(POLICIES)} (default: all but rllib-ppo)",
    )
    parser.add_argument(
        "--seeds",
        type=_seeds,
        default=None,
        help="training seeds, e.g. 0-4 or 1,3 (default: " + ", ".join(f"{p} {n}" for p, n in TRAINED.items()) + ")",
    )
    parser.add_argument(
        "--episodes",
        type=positive_int,
        default=None,
        help=f"evaluation episodes (default 1000; {QUICK_EPISODES} with --quick)",
    )
    parser.add_argument(
        "--jobs", type=jobs_int, default=-1, help="evaluation processes of a task (-1: as many as its --cpus)"
    )
    parser.add_argument(
        "--address",
        default=None,
        help="the Ray cluster to run the tasks on, e.g. 10.0.0.5:6379 (default: RAY_ADDRESS, "
        "else a new local Ray on this machine)",
    )
    parser.add_argument(
        "--runtime-env",
        type=runtime_env_json,
        default=None,
        metavar="JSON",
        help="Ray's runtime environment for the tasks, as JSON, e.g. "
        '\'{"pip": ["gym-suite[sb3,jax,baselines]"]}\' or \'{"py_modules": ["gym_suite"]}\' '
        "(default: none, the nodes' installed packages)",
    )
    parser.add_argument("--cpus", type=_cpus, default=1.0, help="CPUs each task asks Ray for (default: %(default)s)")
    parser.add_argument(
        "--resources",
        type=_parse_resource,
        action="append",
        default=[],
        metavar="[POLICY:]NAME=AMOUNT",
        help="a custom Ray resource the tasks (of POLICY) ask for, repeatable, e.g. sb3-ppo:big_node=1",
    )
    parser.add_argument(
        "--budget",
        type=_parse_budget,
        action="append",
        default=[],
        metavar="[ID:]POLICY=STEPS",
        help="training budget override, repeatable, e.g. heartpole-v0:sb3-ppo=300000",
    )
    parser.add_argument(
        "--vec-env", choices=("native", "dummy"), default="native", help="what Stable-Baselines3 trains on"
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"smoke run: {QUICK_BUDGET:,} training steps and {QUICK_EPISODES} episodes"
    )
    parser.add_argument("--force", action="store_true", help="rerun what the runs file already holds")
    parser.add_argument("--summarize", action="store_true", help="run nothing: the table from the runs file")
    parser.add_argument(
        "--reps", type=positive_int, default=BOOTSTRAP_REPS, help="bootstrap resamples (default: %(default)s)"
    )
    parser.add_argument("--runs-csv", default=str(DEFAULT_RUNS), help="the per-seed runs (default: %(default)s)")
    parser.add_argument("--out-md", default=str(DEFAULT_MD), help="Markdown output ('' for none; default: %(default)s)")
    parser.add_argument("--out-csv", default=str(DEFAULT_CSV), help="CSV output ('' for none; default: %(default)s)")
    parser.add_argument("--out-png", default=str(DEFAULT_PNG), help="figure ('' for none; default: %(default)s)")
    parser.add_argument(
        "--readme",
        default=str(ROOT / "README.md"),
        help="the README whose headline table (between its markers) is rewritten ('' for none; default: %(default)s)",
    )
    parser.add_argument(
        "--out-machine", default=str(DEFAULT_MACHINE), help="machine record ('' for none; default: %(default)s)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # the summary's packages, asked before the runs (which are saved whatever follows)
    needed = ["rliable"] + (["matplotlib"] if args.out_png else [])
    if missing(needed):
        parser.error(f"not installed: {', '.join(missing(needed))} (the baselines extra); the summary needs them")
    episodes = args.episodes or (QUICK_EPISODES if args.quick else 1000)
    if not args.summarize:
        resources: dict[str | None, dict[str, float]] = {}
        for scope, name, amount in args.resources:
            resources.setdefault(scope, {})[name] = amount
        try:
            run(
                args.ids,
                args.policies,
                args.runs_csv,
                seeds=args.seeds,
                episodes=episodes,
                n_jobs=args.jobs,
                budgets=dict(args.budget),
                quick=args.quick,
                vec_env=args.vec_env,
                force=args.force,
                address=args.address,
                cpus=args.cpus,
                resources=resources,
                runtime_env=args.runtime_env,
            )
        except GridError as exc:
            print(
                f"{exc}\nThe runs of the other tasks are in {args.runs_csv}; the same command runs what is missing.",
                file=sys.stderr,
            )
            return 1
        except (RunsFileError, ClusterError, ConnectionError) as exc:
            print(f"{COMMAND}: {exc}", file=sys.stderr)
            return 1
    # the table is made only from a readable runs file with runs of the settings as they are now:
    # never from nothing, which would overwrite the published table with an empty one
    try:
        runs = read_runs(args.runs_csv, missing_ok=False)
    except RunsFileError as exc:
        print(f"{COMMAND}: {exc}; nothing was written", file=sys.stderr)
        return 1
    budgets = dict(args.budget)
    digests = expected_digests(gym_suite.ENV_IDS, POLICIES, budgets, args.quick, args.vec_env)
    rows = summarize(runs, episodes, reps=args.reps, digests=digests)
    if not rows:
        print(
            f"{COMMAND}: runs file {args.runs_csv!r} has no run of {episodes} evaluation episodes with the settings "
            f"the recipes give now ({len(runs)} runs in all); nothing was written",
            file=sys.stderr,
        )
        return 1
    notes = []
    if any(r.env_id == "push-v0" for r in rows):
        notes.append(push_note())
    if any(r.env_id == "push-v1" for r in rows):
        notes.append(push_v1_note())
    for env_id in ("target-v0", "target-v1"):
        if any(r.env_id == env_id for r in rows):
            notes.append(f"`{env_id}`: no DQN row, the action space is continuous.")
    for env_id in ("push-v1", "target-v1"):
        budgets = {r.policy: r.train_steps for r in rows if r.env_id == env_id and r.train_steps}
        if {"sb3-ppo", "jax-ppo"} <= set(budgets):
            notes.append(
                f"`{env_id}`: SB3 PPO and JAX PPO train for the same budget ({_steps(budgets['sb3-ppo'])} and "
                f"{_steps(budgets['jax-ppo'])} steps: whole updates of each library's batch), JAX PPO's recipe's; the "
                "earlier SB3 PPO runs at a smaller budget stay in the runs file, superseded "
                "(`gym_suite/training/recipes.py`)."
            )
    jax_runs = [r for r in runs if r["policy"] == "jax-ppo"]
    chunked = {r["env_id"] for r in jax_runs if r.get("date", "") >= CHUNKED_TRAINING_SINCE}
    earlier = {r["env_id"] for r in jax_runs if r.get("date", "") < CHUNKED_TRAINING_SINCE}
    single = sorted({r["env_id"] for r in jax_runs if current(r, digests)} & earlier - chunked)
    rerun = sorted(chunked & earlier)
    if single:
        notes.append(
            "JAX PPO of " + ", ".join(f"`{env_id}`" for env_id in single) + ": trained before "
            f"{CHUNKED_TRAINING_SINCE} by rejax's own `train`, one compiled program; `train_ppo` now runs the same "
            "updates as three compiled programs (so that JAX's compilation cache keeps them), which rounds "
            "differently: a rerun gives other seeds' returns, not another algorithm ("
            + ", ".join(f"`{env_id}`" for env_id in rerun)
            + " were rerun so; their earlier runs stay in the runs file, superseded)."
        )
    for (env_id, _policy), why in LEFT_OUT.items():
        text = f"`{env_id}`: {why}."
        if any(r.env_id == env_id for r in rows) and text not in notes:
            notes.append(text)
    if any(r.env_id == "example-v1" for r in rows):
        notes.append(
            "`example-v1`: the position is hidden. JAX PPO acts on the last observation alone (memoryless: scored "
            "greedily it is one of 32 maps, the best of which, the heuristic's, is at 0.71); its seeds below random "
            "play maps that are, at 100k steps as at 500k on tuning episodes: a plateau, not a short budget. "
            "SB3-contrib RecurrentPPO (an LSTM) remembers what it heard; the optimum is Bayes-optimal (dynamic "
            "programming over beliefs)."
        )
    if any(r.env_id == "heartpole-v1" for r in rows):
        sb3_seeds = sum(r.seeds for r in rows if (r.env_id, r.policy) == ("heartpole-v1", "sb3-ppo"))
        notes.append(heartpole_v1_note(sb3_seeds))
    for r in rows:
        if 0 < r.seeds < TRAINED.get(r.policy, 0):
            notes.append(
                f"`{r.env_id}` {LABELS[r.policy]}: {r.seeds} training seeds of the {TRAINED[r.policy]} the row "
                f"should have (the others had not finished); `{r.command.split(' --seeds')[0]} --seeds "
                f"0-{TRAINED[r.policy] - 1}` runs the rest."
            )
    machine = machine_record([r for r in runs if int(r["episodes"]) == episodes])
    markdown = to_markdown(rows, machine, notes)
    print(markdown)
    if args.out_md:
        write_atomic(args.out_md, markdown)
    if args.out_csv:
        write_csv(rows, args.out_csv)
        if Path(args.out_csv).resolve() == DEFAULT_CSV.resolve():  # the package's copy for gym_suite.score
            summary = Path(args.out_csv).read_text(encoding="utf-8")
            write_atomic(PACKAGE_TABLE, reference_table_text(summary))
        if args.readme and Path(args.readme).exists():
            with open(args.out_csv, newline="", encoding="utf-8") as f:
                update_readme(args.readme, list(csv.DictReader(f)))
    if args.out_machine:
        write_atomic(args.out_machine, json.dumps(machine, indent=2) + "\n")
    if args.out_png and any(r.seeds for r in rows):
        plot_normalized(rows, args.out_png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
