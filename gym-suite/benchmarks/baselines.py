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
import csv
import io
import json
import math
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from _machine import cpu_name, versions  # this folder's helper (the script's folder is on sys.path)

import gym_suite
from gym_suite.cli import jobs_int, positive_int
from gym_suite.evaluate import evaluate
from gym_suite.score import reference_table_text
from gym_suite.training.recipes import TUNABLE_AGENTS, recipe_budget, recipe_for, tuned_since

ROOT = Path(__file__).resolve().parents[2]  # the repository
ANALYSES = ROOT / "gym-suite" / "analyses"
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
TRAINED = {"sb3-ppo": 5, "sb3-dqn": 5, "rllib-ppo": 5, "jax-ppo": 10}
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
}
#: The date from which a trained row's recipe holds: runs made before it trained with an earlier
#: recipe, stay in the runs file and are left out of the table (and run again when asked for).
#: heartpole-v1's SB3 PPO: gamma 1 with the two weeks' end terminal, 1.2M steps (was gamma 0.999,
#: bootstrapping at the end, 1.5M steps).
RECIPE_SINCE = {("heartpole-v1", "sb3-ppo"): "2026-11-26"}
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


def _analysis(name: str):
    """A module of ``gym-suite/analyses`` (the repository's analysis scripts)."""
    if str(ANALYSES) not in sys.path:
        sys.path.insert(0, str(ANALYSES))
    return __import__(name)


@dataclass(frozen=True)
class Reference:
    """A policy that needs no training: how to build it, and the command that reproduces it.

    ``build_on_training``: the same policy for the training data, where it differs (push-v0's
    Bayes-optimal policy reads the generator's probabilities of the log it plays).
    """

    build: Callable[[], Any]
    command: str
    name: str = ""  # what the row is, beside its label
    build_on_training: Callable[[], Any] | None = None


def references(env_id: str) -> dict[str, Reference]:
    """The reference policies of ``env_id`` beyond random and the heuristic."""
    found: dict[str, Reference] = {}
    if env_id in ("heartpole-v0", "heartpole-v1"):
        grid = "0.1" if env_id == "heartpole-v1" else "0.2"
        if env_id == "heartpole-v1":
            found["best-known"] = Reference(
                lambda: _analysis("heartpole_v1_reference").best_known_policy(),
                "python gym-suite/analyses/heartpole_v1_reference.py",
                "the best time-aware threshold policy found (searched on seeds 10,000-10,999)",
            )
        found["optimum"] = Reference(
            lambda: _analysis("heartpole_optimum").optimal_policy(env_id),
            f"python gym-suite/analyses/heartpole_optimum.py --ids {env_id}",
            f"dynamic programming on a {grid} grid, without beer: optimal to the grid",
        )
    elif env_id in ("example-v0", "target-v0"):
        expected = {"example-v0": "8.5", "target-v0": "1"}[env_id]
        found["optimum"] = Reference(
            lambda: "heuristic",
            "python gym-suite/analyses/optima.py",
            f"the heuristic, optimal: {expected} expected (optima.py)",
        )
    elif env_id == "target-v1":
        found["optimum"] = Reference(
            lambda: _analysis("target_optimum").OptimalPolicy(),
            "python gym-suite/analyses/target_optimum.py",
            "the earliest intercept, exact (target_optimum.py)",
        )
    elif env_id == "push-v0":
        found["optimum"] = Reference(
            lambda: _analysis("push_supervised").bayes_policy("test"),
            "python gym-suite/analyses/push_supervised.py",
            "Bayes-optimal: the generator's open probabilities",
            lambda: _analysis("push_supervised").bayes_policy("train"),
        )
        found["supervised"] = Reference(
            lambda: _analysis("push_supervised").supervised_policy("logistic"),
            "python gym-suite/analyses/push_supervised.py",
            "fit on the training log",
        )
    elif env_id == "push-v1":
        found["optimum"] = Reference(
            lambda: _analysis("push_v1_optimum").optimal_policy("test"),
            "python gym-suite/analyses/push_v1_optimum.py",
            "online dynamic program over budget and notifications left, with the generator's open probabilities",
            lambda: _analysis("push_v1_optimum").optimal_policy("train"),
        )
        found["supervised"] = Reference(
            lambda: _analysis("push_v1_optimum").supervised_policy(),
            "python gym-suite/analyses/push_v1_optimum.py",
            "fit on the training log, with the optimum's thresholds",
        )
    return found


def available(env_id: str, policy: str) -> bool:
    """Whether ``policy`` has a row for ``env_id`` (DQN needs discrete actions; references vary)."""
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
    return True


# --------------------------------------------------------------------------------------------
# Runs: one line per (id, policy, training seed)
# --------------------------------------------------------------------------------------------


def current(run: dict[str, str]) -> bool:
    """Whether a run trained with its row's current recipe (:data:`RECIPE_SINCE`, or the date of the
    row's tuned settings: ``gym-suite/analyses/tune_recipe.py``, ``recipes.read_tuned_recipes``)."""
    dates = [RECIPE_SINCE.get((run["env_id"], run["policy"]))]
    if run["policy"] in TUNABLE_AGENTS:
        dates.append(tuned_since(run["env_id"], run["policy"]))
    since, made = max((d for d in dates if d), default=None), run.get("date")
    return since is None or not made or made >= since


def read_runs(path: str | os.PathLike) -> list[dict[str, str]]:
    path = Path(path)
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def append_run(path: str | os.PathLike, run: dict[str, Any]) -> None:
    """Append one run to the runs file (the header first where the file is new or empty).

    Only the driver writes the file, one run at a time as its results arrive; the line is
    written in one call, so that an interrupted driver leaves whole lines.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, RUN_FIELDS)
    if not path.exists() or path.stat().st_size == 0:
        writer.writeheader()
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


def _score(env_id: str, policy: Any, episodes: int, n_jobs: int, on_training: Any = None) -> dict[str, Any]:
    """The evaluation part of a run: on the held-out data where the id has some, and on the training data."""
    held_out = recipe_for(env_id).eval_env_kwargs
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
    """Training steps per seed: an override, the quick budget, or the recipe's (None: ``train_ppo``'s own)."""
    for key in ((env_id, policy), (None, policy)):
        if key in overrides:
            return overrides[key]
    if quick:
        return QUICK_BUDGET
    return None if policy == "jax-ppo" else recipe_budget(env_id, policy)


def run_reference(env_id: str, policy: str, episodes: int, n_jobs: int) -> dict[str, Any]:
    on_training = None
    if policy in ("random", "heuristic"):
        act: Any = policy
        note = ""
    else:
        ref = references(env_id)[policy]
        act, note = ref.build(), ref.name
        if ref.build_on_training is not None and recipe_for(env_id).eval_env_kwargs:
            on_training = ref.build_on_training()
    scores = _score(env_id, act, episodes, n_jobs, on_training)
    return {"env_id": env_id, "policy": policy, "train_seed": "", "note": note, **scores}


def run_trained(
    env_id: str, policy: str, seeds: list[int], episodes: int, n_jobs: int, steps: int | None, vec_env: str
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
                **_score(env_id, act, episodes, n_jobs),
            }
        return
    for seed in seeds:
        start = time.perf_counter()
        if policy in ("sb3-ppo", "sb3-dqn"):
            from gym_suite.training.sb3 import SB3Policy, train_sb3

            model = train_sb3(env_id, policy.split("-")[1], steps, seed=seed, vec_env=vec_env)
            act, trained_steps = SB3Policy(model, name=policy), int(model.num_timesteps)
        else:
            import shutil
            import tempfile

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
            **_score(env_id, act, episodes, n_jobs),
        }


@dataclass(frozen=True)
class Task:
    """One Ray task of the grid: a reference policy (``seeds`` empty), one training seed of an
    agent, or JAX PPO's consecutive seeds (one vmapped run)."""

    env_id: str
    policy: str
    seeds: tuple[int, ...] = ()
    steps: int | None = None

    def __str__(self) -> str:
        seeds = f" seeds {','.join(map(str, self.seeds))}" if self.seeds else ""
        return f"{self.env_id} {self.policy}{seeds}"


def plan(
    ids: list[str],
    policies: list[str],
    runs: list[dict[str, str]],
    seeds: list[int] | None = None,
    episodes: int = 1000,
    budgets: dict | None = None,
    quick: bool = False,
    force: bool = False,
) -> list[Task]:
    """The tasks of the grid that ``runs`` (the runs file's lines) does not hold yet (all with ``force``).

    A run is held when the file has its (id, policy, training seed) scored on ``episodes``
    evaluation episodes with the row's current recipe (:data:`RECIPE_SINCE`).
    """
    budgets = budgets or {}
    tasks: list[Task] = []
    for env_id in ids:
        for policy in policies:
            if not available(env_id, policy):
                continue
            done = {
                r["train_seed"]
                for r in runs
                if r["env_id"] == env_id and r["policy"] == policy and int(r["episodes"]) == episodes and current(r)
            }
            if policy in REFERENCES:
                if force or "" not in done:
                    tasks.append(Task(env_id, policy))
                continue
            wanted = seeds if seeds is not None else list(range(TRAINED[policy]))
            todo = wanted if force else [s for s in wanted if str(s) not in done]
            if not todo:
                continue
            steps = _budget(env_id, policy, budgets, quick)
            if policy == "jax-ppo":  # vmapped seeds are consecutive: one task runs them all
                tasks.append(Task(env_id, policy, tuple(wanted), steps))
            else:
                tasks.extend(Task(env_id, policy, (seed,), steps) for seed in todo)
    return tasks


def run_task(task: Task, episodes: int, n_jobs: int, vec_env: str) -> tuple[str, list[dict[str, Any]]]:
    """What a Ray task does: run ``task``; returns the node it ran on (Ray's node id) and its runs."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    if task.policy in REFERENCES:
        runs = [run_reference(task.env_id, task.policy, episodes, n_jobs)]
    else:
        runs = list(run_trained(task.env_id, task.policy, list(task.seeds), episodes, n_jobs, task.steps, vec_env))
    cpu, today = cpu_name(), date.today().isoformat()
    for one in runs:
        one.update(date=today, cpu=cpu)
    return node, runs


class GridError(RuntimeError):
    """Tasks of the grid failed (the others' runs are recorded)."""


def connect(address: str | None) -> str:
    """Join the Ray cluster at ``address`` (``RAY_ADDRESS`` when None), or start a local Ray when
    neither is given; the address joined ("local" for a new local Ray)."""
    from gym_suite.training import connect_ray

    return connect_ray(address)


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
) -> int:
    """Run what ``runs_csv`` does not hold yet (everything with ``force``) as Ray tasks; the number of runs added.

    Every task asks Ray for ``cpus`` CPUs (its evaluation runs on that many processes unless
    ``n_jobs`` is positive) and for the custom ``resources`` of its policy (``resources[policy]``,
    then ``resources[None]`` for every policy), on the cluster at ``address`` (:func:`connect`).
    The driver appends each task's runs to ``runs_csv`` as the task finishes: an interrupted grid
    loses only the tasks that were running, and the same command resumes it. Raises
    :class:`GridError` after the other tasks' runs are recorded if some tasks failed.
    """
    tasks = plan(ids, policies, read_runs(runs_csv), seeds, episodes, budgets, quick, force)
    if not tasks:
        return 0
    import ray

    joined = connect(address)
    # the tasks' code travels with them: this script (and its folder's helper) are not installed
    # on the cluster's nodes, the gym_suite package is
    for name in {__name__, cpu_name.__module__}:
        if name != "__main__":
            ray.cloudpickle.register_pickle_by_value(sys.modules[name])
    resources = resources or {}
    jobs = n_jobs if n_jobs > 0 else max(1, int(cpus))
    remote = ray.remote(run_task)
    pending = {
        remote.options(num_cpus=cpus, resources={**resources.get(None, {}), **resources.get(t.policy, {})}).remote(
            t, episodes, jobs, vec_env
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


def summarize(runs: list[dict[str, str]], episodes: int, reps: int = BOOTSTRAP_REPS) -> list[Summary]:
    """The table's rows, from the runs that played ``episodes`` evaluation episodes."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in runs:
        if int(r["episodes"]) == episodes and current(r):
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
                        note=last.get("note", ""),
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
        row.reference = f"{LABELS[top.policy]} ({top.note})" if top.note else LABELS[top.policy]
        row.normalized = (row.iqm - random_row.iqm) / span
        row.normalized_ci_low = (row.ci_low - random_row.iqm) / span
        row.normalized_ci_high = (row.ci_high - random_row.iqm) / span


def write_csv(rows: list[Summary], path: str | os.PathLike) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
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


def _num(x: float | None, digits: int = 2) -> str:
    if x is None:
        return ""
    if abs(x) >= 10_000:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def to_markdown(rows: list[Summary], machine: dict[str, Any], notes: list[str]) -> str:
    episodes = sorted({r.eval_episodes for r in rows})
    lines = [
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
        "**Running the grid on Ray.** Every run (an id, a policy, a training seed; JAX PPO's seeds of an id "
        "together, one vmapped run) is a [Ray](https://docs.ray.io) task asking for `--cpus` CPUs (1 by "
        "default; its evaluation runs on that many processes). Without an address the script starts a new "
        "Ray on this machine, using every core. On a cluster, start Ray on each machine (the head: "
        "`ray start --head --port=6379`; every other one: `ray start --address=HEAD_IP:6379`), with "
        "gym-suite and the same extras installed and this repository at the same path on every machine "
        "(the reference policies come from `gym-suite/analyses/`), then run the driver on any of them:",
        "",
        "```bash",
        f"RAY_ADDRESS=HEAD_IP:6379 {COMMAND} --ids heartpole-v1 --policies sb3-ppo --seeds 0-9",
        "```",
        "",
        "(or `--address HEAD_IP:6379`). `--resources POLICY:NAME=AMOUNT` makes a policy's tasks ask for a "
        "custom resource, so that they run only on the nodes started with it (`ray start ... "
        "--resources='{\"big_node\": 1}'`). The driver gathers the results and appends each run to "
        "`docs/baselines_runs.csv` as its task finishes, so an interrupted grid (the driver stopped, a "
        "machine lost) loses only the tasks that were running: the same command runs what is missing and "
        "nothing else (`--force` runs everything again). The table is made from the file: "
        f"`{COMMAND} --summarize`.",
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
        "*Normalized*: (score − random) / (optimum − random), 0 for the random policy and 1 for the optimum "
        "(or the best known policy where no optimum is known). Budget: environment steps of training per "
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
        "`gym-suite/analyses/heartpole_v1_reference.py`), and a recipe's settings are compared on tuning "
        "episodes seeded 100,000 onwards (heartpole-v1's JAX PPO recipe, first chosen by its scores on "
        "episodes 0-999, is re-checked there by `gym-suite/analyses/heartpole_v1_tuning.py`, and no "
        "variant does better: no discounting with the two weeks' end terminal, which SB3 PPO shares, 452.4 against 442.3 with "
        "gamma 0.999, the 32 x 32 network against 64 x 64's 448.2, rewards x 0.01 against x 0.1's 447.9; 3 "
        "training seeds each). "
        "Every training seed run is reported (0, 1, ...), none left out or rerun for a better score. Recipes "
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
        "recipes read over their own; runs of that id and agent made before that date are left out of the "
        "table and run again with the tuned recipe:",
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
    for r in rows:
        label = LABELS[r.policy] + (f": {r.note}" if r.note and r.policy in REFERENCES else "")
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
    if notes:
        lines += ["", *[f"- {note}" for note in notes]]
    lines += [
        "",
        "![Normalized IQM and its 95 % interval over training seeds, per id and trained agent]"
        "(img/baselines_normalized.png)",
        "",
        "The learning curves of JAX PPO and SB3 PPO on heartpole-v1, seeds as a band: "
        "[Training speed](training-speed.md).",
    ]
    return "\n".join(lines) + "\n"


HEADLINE_POLICIES = ("heuristic", "supervised", "best-known", "sb3-ppo", "sb3-dqn", "rllib-ppo", "jax-ppo", "optimum")
README_START = "<!-- baselines-headline:start -->"
README_END = "<!-- baselines-headline:end -->"


def headline_markdown(table: list[dict[str, str]]) -> str:
    """README's table: the normalized score of every id and policy, from ``docs/baselines.csv``'s rows.

    Trained policies: the normalized IQM over seeds, its 95 % interval, and the seeds (diverged
    ones counted); references: the normalized mean.
    """
    by_key = {(r["env_id"], r["policy"]): r for r in table}
    policies = [p for p in HEADLINE_POLICIES if any(r["policy"] == p for r in table)]
    ids = [i for i in gym_suite.ENV_IDS if any(r["env_id"] == i for r in table)]
    lines = [
        "| id | " + " | ".join(LABELS[p].split(":")[0] for p in policies) + " |",
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
                cells.append(
                    f"{float(r['normalized']):.2f} [{float(r['normalized_ci_low']):.2f}, "
                    f"{float(r['normalized_ci_high']):.2f}] ({r['seeds']} seeds{diverged})"
                )
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
    path.write_text(head + README_START + "\n" + headline_markdown(table) + README_END + tail, encoding="utf-8")
    return True


def machine_record(runs: list[dict[str, str]]) -> dict[str, Any]:
    packages = ("gymnasium", "numpy", "torch", "stable-baselines3", "ray", "jax", "rejax", "rliable", "scikit-learn")
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
    table = _analysis("push_v1_optimum").exact_table("test", 2)
    return (
        "`push-v1`: the return is the expected opens of a user-day (2 deliveries a day). The optimum is the "
        "online dynamic program that knows the open probability of the notification at hand (no agent does), "
        f"{table['optimum']:.3f} over every user-day of the test log; the hindsight bound (the day's two likeliest "
        f"notifications, known in advance), {table['hindsight']:.3f}, is above what any policy deciding in order "
        "can reach (`python gym-suite/analyses/push_v1_optimum.py`). On the training log an agent can recognise "
        "a day it trained on from its first notification and so know the rest of it: a score above the optimum "
        "there (up to the hindsight bound) is memorisation, which the test log does not reward."
    )


def heartpole_v1_note(sb3_seeds: int) -> str:
    """heartpole-v1: the recipe both PPOs share (``sb3_seeds``: the SB3 PPO row's seeds), and the best
    known policy paired against the previous one."""
    reference = _analysis("heartpole_v1_reference")
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
    colors = dict(zip(TRAINED, ("#4c72b0", "#dd8452", "#55a868", "#c44e52")))
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
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
            )
        except GridError as exc:
            print(
                f"{exc}\nThe runs of the other tasks are in {args.runs_csv}; the same command runs what is missing.",
                file=sys.stderr,
            )
            return 1
    runs = read_runs(args.runs_csv)
    rows = summarize(runs, episodes, reps=args.reps)
    notes = []
    if any(r.env_id == "push-v0" for r in rows):
        notes.append(push_note())
    if any(r.env_id == "push-v1" for r in rows):
        notes.append(push_v1_note())
    for env_id in ("target-v0", "target-v1"):
        if any(r.env_id == env_id for r in rows):
            notes.append(f"`{env_id}`: no DQN row, the action space is continuous.")
    if any((r.env_id, r.policy) == ("target-v1", "sb3-ppo") for r in rows):
        notes.append(
            "`target-v1` SB3 PPO: a budget of 60k steps a seed, all that five seeds could train for on the shared "
            "2-core machine of these runs; the row is what PPO learns in that many steps (about the random "
            "policy's score), not a comparison with JAX PPO's 2M steps (`gym_suite/training/recipes.py`)."
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
        Path(args.out_md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out_md).write_text(markdown, encoding="utf-8")
    if args.out_csv:
        write_csv(rows, args.out_csv)
        if Path(args.out_csv).resolve() == DEFAULT_CSV.resolve():  # the package's copy for gym_suite.score
            summary = Path(args.out_csv).read_text(encoding="utf-8")
            PACKAGE_TABLE.write_text(reference_table_text(summary), encoding="utf-8")
        if args.readme and Path(args.readme).exists():
            with open(args.out_csv, newline="", encoding="utf-8") as f:
                update_readme(args.readme, list(csv.DictReader(f)))
    if args.out_machine:
        Path(args.out_machine).write_text(json.dumps(machine, indent=2) + "\n", encoding="utf-8")
    if args.out_png and any(r.seeds for r in rows):
        plot_normalized(rows, args.out_png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
