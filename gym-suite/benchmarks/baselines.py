"""The baselines table: references and agents trained over several seeds, on every suite environment.

    python gym-suite/benchmarks/baselines.py                      # everything missing, then the table
    python gym-suite/benchmarks/baselines.py --ids heartpole-v1 --policies sb3-ppo --seeds 0-4
    python gym-suite/benchmarks/baselines.py --summarize           # the table from the runs recorded so far
    RAY_ADDRESS=10.0.0.5:6379 python gym-suite/benchmarks/baselines.py   # on a Ray cluster (or --address)

**Runs** (this file): every (id, policy, training seed) missing from ``--runs-csv`` runs as a Ray
task, trained with the id's recipe and scored on the same seeded evaluation episodes; the driver
appends each run as its task finishes, so an interrupted grid resumes with the same command.
**Summary** (``_outputs.py``): IQM and 95 % intervals over the seeds, normalized scores, written to
the outputs; ``docs/baselines.md`` says how to read them. The summary needs the ``baselines`` extra.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import _outputs
from _machine import cpu_name, missing  # this folder's helpers (the script's folder is on sys.path)
from _outputs import BOOTSTRAP_REPS, COMMAND, LABELS, LEFT_OUT, POLICIES, REFERENCES, TRAINED, Summary, _cell

import gym_suite
from gym_suite.cli import jobs_int, positive_int
from gym_suite.evaluate import evaluate
from gym_suite.references import references
from gym_suite.training.recipes import given_tuned_recipes, recipe_for, settings_digest, tuned_entry
from gym_suite.training.resolved import resolved_training

QUICK_EPISODES = 100
QUICK_BUDGET = 5_000
RUN_FIELDS = (
    "env_id", "policy", "train_seed", "eval_seed", "episodes", "mean_return", "std_return", "mean_length",
    "mean_return_on_training_data", "train_steps", "train_seconds", "eval_seconds", "note", "date", "cpu", "digest",
)  # fmt: skip


# --------------------------------------------------------------------------------------------
# The policies
# --------------------------------------------------------------------------------------------


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
    ids: Iterable[str], policies: Iterable[str], budgets: dict | None = None, quick: bool = False, vec_env="native"
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


def _score(
    env_id: str, policy: Any, episodes: int, n_jobs: int, held_out: dict[str, Any], on_training: Any = None
) -> dict[str, Any]:
    """The evaluation part of a run: on the held-out data where the id has some (``held_out``: the
    env arguments that select it), and on the training data."""
    start = time.perf_counter()
    result = evaluate(env_id, policy, episodes=episodes, seed=0, n_jobs=n_jobs, env_kwargs=held_out or None)
    out: dict[str, Any] = {"eval_seed": 0, "episodes": episodes, "mean_return": result.mean, "std_return": result.std}
    out |= {"mean_length": result.mean_length, "eval_seconds": round(time.perf_counter() - start, 1)}
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
    env_id: str, policy: str, seeds: list[int], episodes: int, n_jobs: int, steps: int, vec_env: str, held_out: dict
) -> Iterable[dict[str, Any]]:
    """Train ``policy`` on ``env_id`` with each seed and score it: one run per seed, as each is done."""

    def scored(seed: int, act: Any, trained_steps: int, seconds: float, **note: str) -> dict[str, Any]:
        run = {"env_id": env_id, "policy": policy, "train_seed": seed, "train_steps": trained_steps}
        return {**run, "train_seconds": round(seconds, 1), **note, **_score(env_id, act, episodes, n_jobs, held_out)}

    if policy == "jax-ppo":  # every seed in one vmapped run
        from gym_suite.training.jax import train_ppo

        start = time.perf_counter()
        result = train_ppo(env_id, seed=seeds[0], num_seeds=len(seeds), total_timesteps=steps)
        seconds = time.perf_counter() - start
        if result.seeds != seeds:
            raise ValueError(f"jax-ppo trains consecutive seeds: asked for {seeds}, trained {result.seeds}")
        for seed, act in zip(result.seeds, result.policies):
            yield scored(seed, act, result.timesteps, seconds, note=f"{len(seeds)} seeds in one vmapped run")
        return
    for seed in seeds:
        start = time.perf_counter()
        act, trained_steps = _train(env_id, policy, steps, seed, vec_env)
        yield scored(seed, act, trained_steps, time.perf_counter() - start)


def _train(env_id: str, policy: str, steps: int, seed: int, vec_env: str) -> tuple[Any, int]:
    """One training seed of ``policy`` (JAX PPO excepted): the trained policy and its training steps."""
    if policy in ("sb3-ppo", "sb3-dqn"):
        from gym_suite.training.sb3 import SB3Policy, train_sb3

        model = train_sb3(env_id, policy.split("-")[1], steps, seed=seed, vec_env=vec_env)
        return SB3Policy(model, name=policy), int(model.num_timesteps)
    if policy == "sb3-recurrent-ppo":
        from gym_suite.training.sb3_recurrent import RecurrentPolicy, train_recurrent_ppo

        model = train_recurrent_ppo(env_id, steps, seed=seed)
        return RecurrentPolicy(model, name=policy), int(model.num_timesteps)
    if policy == "reward-model":
        from gym_suite.training.reward_model import train_reward_model

        return train_reward_model(env_id, steps, seed=seed), steps
    import shutil

    from gym_suite.training.rllib import RLlibPolicy, train_rllib

    checkpoint_dir = Path(tempfile.mkdtemp(prefix="gym_suite_rllib_"))
    try:
        checkpoint, trained_steps = train_rllib(env_id, steps, seed=seed, checkpoint_dir=checkpoint_dir)
        return RLlibPolicy.from_checkpoint(checkpoint, env_id), trained_steps
    finally:
        shutil.rmtree(checkpoint_dir, ignore_errors=True)


@dataclass(frozen=True)
class Task:
    """One Ray task of the grid: a reference policy (``seeds`` empty), one training seed of an agent,
    or JAX PPO's consecutive seeds (one vmapped run), with what the driver resolved for it
    (``resolved``, its ``digest``, the ``tuned`` settings it trains with): it reads no file of its node.
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
    ids: list[str], policies: list[str], runs: list[dict[str, str]], seeds: list[int] | None = None,
    episodes: int = 1000, budgets: dict | None = None, quick: bool = False, force: bool = False, vec_env: str = "native",
) -> list[Task]:  # fmt: skip
    """The tasks of the grid that ``runs`` does not hold yet (all with ``force``): a run is held when
    its (id, policy, seed) was scored on ``episodes`` episodes with its row's settings as they are now."""
    budgets = budgets or {}
    tasks: list[Task] = []
    for env_id in ids:
        for policy in policies:
            if available(env_id, policy):
                tasks += _row_tasks(
                    env_id, policy, runs, seeds, episodes, _budget(env_id, policy, budgets, quick), force, vec_env
                )
    return tasks


def _row_tasks(
    env_id: str, policy: str, runs: list[dict[str, str]], seeds: list[int] | None, episodes: int, steps: int | None,
    force: bool, vec_env: str,
) -> list[Task]:  # fmt: skip
    """:func:`plan`'s tasks of one row (``steps``: the budget asked for, None for the recipe's)."""
    reference = policy in REFERENCES
    resolved = resolved_settings(env_id, policy, None if reference else steps, vec_env)
    digest = settings_digest(resolved)
    tuned = {} if reference else tuned_entry(env_id, policy)
    done = {
        r["train_seed"]
        for r in runs
        if (r["env_id"], r["policy"]) == (env_id, policy)
        and int(r["episodes"]) == episodes
        and r.get("digest") == digest
    }
    if reference:
        return [Task(env_id, policy, (), resolved, digest, tuned)] if force or "" not in done else []
    wanted = seeds if seeds is not None else list(range(TRAINED[policy]))
    todo = wanted if force else [s for s in wanted if str(s) not in done]
    # JAX PPO's vmapped seeds are consecutive: one task a run of them
    groups = _consecutive(todo) if policy == "jax-ppo" else [(seed,) for seed in todo]
    return [Task(env_id, policy, group, resolved, digest, tuned) for group in groups]


class NodeMismatchError(RuntimeError):
    """The node's gym-suite resolves a task's settings otherwise than the driver did."""


def run_task(task: Task, episodes: int, n_jobs: int) -> tuple[str, list[dict[str, Any]]]:
    """What a Ray task does: run ``task`` with what its driver resolved; the node it ran on and its runs.

    It reads nothing of its node but the installed package, which must resolve the task's settings
    as the driver did (the same digest), else the task fails saying so.
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
            vec_env = resolved.get("vec_env", "native")
            trained = run_trained(task.env_id, task.policy, list(task.seeds), episodes, n_jobs, resolved["steps"], vec_env, held_out)  # fmt: skip
            runs = list(trained)
    cpu, today = cpu_name(), date.today().isoformat()
    for one in runs:
        one.update(date=today, cpu=cpu, digest=task.digest)
    return node, runs


class GridError(RuntimeError):
    """Tasks of the grid failed (the others' runs are recorded)."""


class ClusterError(RuntimeError):
    """The cluster cannot run the grid's tasks (a request no node satisfies); nothing was started."""


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
    ids: list[str], policies: list[str], runs_csv: str | os.PathLike, seeds: list[int] | None = None,
    episodes: int = 1000, n_jobs: int = -1, budgets: dict | None = None, quick: bool = False, vec_env: str = "native",
    force: bool = False, address: str | None = None, cpus: float = 1,
    resources: dict[str | None, dict[str, float]] | None = None, runtime_env: dict[str, Any] | None = None,
) -> int:  # fmt: skip
    """Run what ``runs_csv`` does not hold yet (everything with ``force``) as Ray tasks; the number of runs added.

    Every task asks for ``cpus`` CPUs and its policy's ``resources`` (``resources[None]``: every
    policy's), on the cluster at ``address`` (``RAY_ADDRESS`` when None, else a new local Ray). The
    driver holds the runs file (:func:`runs_file_lock`) and appends each task's runs as it finishes.
    Raises :class:`ClusterError` before any task starts if no node can place one, and
    :class:`GridError` after the other tasks' runs are recorded if some tasks failed.
    """
    with runs_file_lock(runs_csv):
        tasks = plan(ids, policies, read_runs(runs_csv), seeds, episodes, budgets, quick, force, vec_env)
        if not tasks:
            return 0
        import ray

        from gym_suite.training import connect_ray

        joined = connect_ray(address, runtime_env=runtime_env)  # RAY_ADDRESS's cluster when None, else a local Ray
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


def summarize(
    runs: list[dict[str, str]], episodes: int, reps: int = BOOTSTRAP_REPS, digests: dict | None = None
) -> list[Summary]:
    """The table's rows (:func:`_outputs.summarize`), from the runs that played ``episodes`` evaluation
    episodes with their row's settings as they are now (``digests``, :func:`expected_digests`; default:
    every id and policy with the recipes' budgets)."""
    if digests is None:
        digests = expected_digests(gym_suite.ENV_IDS, POLICIES)
    return _outputs.summarize(runs, episodes, reps, digests)


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
    add = parser.add_argument
    ids, policies = list(gym_suite.ENV_IDS), [p for p in POLICIES if p != "rllib-ppo"]
    add("--ids", type=_csv_list(ids), default=ids, help="comma-separated ids (default: every registered id)")
    add("--policies", type=_csv_list(POLICIES), default=policies,
        help=f"comma-separated policies among {','.join(POLICIES)} (default: all but rllib-ppo)")  # fmt: skip
    seeds = ", ".join(f"{p} {n}" for p, n in TRAINED.items())
    add("--seeds", type=_seeds, default=None, help=f"training seeds, e.g. 0-4 or 1,3 (default: {seeds})")
    episodes = f"evaluation episodes (default 1000; {QUICK_EPISODES} with --quick)"
    add("--episodes", type=positive_int, default=None, help=episodes)
    add("--jobs", type=jobs_int, default=-1, help="evaluation processes of a task (-1: as many as its --cpus)")
    add("--address", default=None,
        help="the Ray cluster to run the tasks on, e.g. 10.0.0.5:6379 (default: RAY_ADDRESS, "
        "else a new local Ray on this machine)")  # fmt: skip
    add("--runtime-env", type=runtime_env_json, default=None, metavar="JSON",
        help="Ray's runtime environment for the tasks, as JSON, e.g. "
        '\'{"pip": ["gym-suite[sb3,jax,baselines]"]}\' or \'{"py_modules": ["gym_suite"]}\' '
        "(default: none, the nodes' installed packages)")  # fmt: skip
    add("--cpus", type=_cpus, default=1.0, help="CPUs each task asks Ray for (default: %(default)s)")
    add("--resources", type=_parse_resource, action="append", default=[], metavar="[POLICY:]NAME=AMOUNT",
        help="a custom Ray resource the tasks (of POLICY) ask for, repeatable, e.g. sb3-ppo:big_node=1")  # fmt: skip
    add("--budget", type=_parse_budget, action="append", default=[], metavar="[ID:]POLICY=STEPS",
        help="training budget override, repeatable, e.g. heartpole-v0:sb3-ppo=300000")  # fmt: skip
    add("--vec-env", choices=("native", "dummy"), default="native", help="what Stable-Baselines3 trains on")
    quick = f"smoke run: {QUICK_BUDGET:,} training steps and {QUICK_EPISODES} episodes"
    add("--quick", action="store_true", help=quick)
    add("--force", action="store_true", help="rerun what the runs file already holds")
    add("--summarize", action="store_true", help="run nothing: the table from the runs file")
    add("--reps", type=positive_int, default=BOOTSTRAP_REPS, help="bootstrap resamples (default: %(default)s)")
    for flag, default, what in (
        ("--runs-csv", _outputs.DEFAULT_RUNS, "the per-seed runs ("),
        ("--out-md", _outputs.DEFAULT_MD, "Markdown output ('' for none; "),
        ("--out-csv", _outputs.DEFAULT_CSV, "CSV output ('' for none; "),
        ("--out-png", _outputs.DEFAULT_PNG, "figure ('' for none; "),
        ("--readme", _outputs.ROOT / "README.md",
         "the README whose headline table (between its markers) is rewritten ('' for none; "),
        ("--out-machine", _outputs.DEFAULT_MACHINE, "machine record ('' for none; "),
    ):  # fmt: skip
        add(flag, default=str(default), help=what + "default: %(default)s)")
    return parser


def _run_grid(args: argparse.Namespace, episodes: int) -> bool:
    """Run what the runs file lacks (:func:`run`); False, once the error is printed, if that failed."""
    resources: dict[str | None, dict[str, float]] = {}
    for scope, name, amount in args.resources:
        resources.setdefault(scope, {})[name] = amount
    try:
        given = {
            name: getattr(args, name)
            for name in ("seeds", "quick", "vec_env", "force", "address", "cpus", "runtime_env")
        }
        given.update(episodes=episodes, n_jobs=args.jobs, budgets=dict(args.budget), resources=resources)
        run(args.ids, args.policies, args.runs_csv, **given)
    except GridError as exc:
        print(
            f"{exc}\nThe runs of the other tasks are in {args.runs_csv}; the same command runs what is missing.",
            file=sys.stderr,
        )
        return False
    except (RunsFileError, ClusterError, ConnectionError) as exc:
        print(f"{COMMAND}: {exc}", file=sys.stderr)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # the summary's packages, asked before the runs (which are saved whatever follows)
    needed = ["rliable"] + (["matplotlib"] if args.out_png else [])
    if missing(needed):
        parser.error(f"not installed: {', '.join(missing(needed))} (the baselines extra); the summary needs them")
    episodes = args.episodes or (QUICK_EPISODES if args.quick else 1000)
    if not args.summarize and not _run_grid(args, episodes):
        return 1
    # the table is made only from a readable runs file with runs of the settings as they are now:
    # never from nothing, which would overwrite the published table with an empty one
    try:
        runs = read_runs(args.runs_csv, missing_ok=False)
    except RunsFileError as exc:
        print(f"{COMMAND}: {exc}; nothing was written", file=sys.stderr)
        return 1
    digests = expected_digests(gym_suite.ENV_IDS, POLICIES, dict(args.budget), args.quick, args.vec_env)
    rows = summarize(runs, episodes, reps=args.reps, digests=digests)
    if not rows:
        print(
            f"{COMMAND}: runs file {args.runs_csv!r} has no run of {episodes} evaluation episodes with the settings "
            f"the recipes give now ({len(runs)} runs in all); nothing was written",
            file=sys.stderr,
        )
        return 1
    outputs = (args.out_md, args.out_csv, args.out_png, args.readme, args.out_machine)
    _outputs.publish(rows, runs, episodes, digests, *outputs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
