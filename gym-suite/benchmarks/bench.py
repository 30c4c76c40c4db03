"""Steps per second of every gym-suite environment next to reference environments, in one run.

::

    python gym-suite/benchmarks/bench.py [--quick] [--ids ID [ID ...]] [--json PATH] [--markdown PATH]
    python gym-suite/benchmarks/bench.py --ids heartpole-v0 --create-heartpole-venv   # against heartpole 1.2
    python gym-suite/benchmarks/bench.py --from-json docs/bench.json --markdown docs/bench.md
    python gym-suite/benchmarks/bench.py --from-json docs/bench.json --step-cost step_cost.json \
        --json docs/bench.json --markdown docs/bench.md   # adds step_cost.py's table of a CPU family

For every registered id it times the raw environment class, the environment through
``gymnasium.make``, through gym's ``gym.make`` (when gym is installed), Gymnasium's
``SyncVectorEnv`` at N=8 and N=64 and the environment's native vector env at N=64, 1,024 and
4,096. Reference rows are timed in the same run: Gymnasium's ``CartPole-v1`` through ``make``
and its native ``CartPoleVectorEnv``, and the PyPI package ``heartpole==1.2`` when a virtual
environment holding it is available (it pins ``numpy<2`` and ``gymnasium 0.29``, so it runs in
its own interpreter, timed by the same loop: the source of :func:`time_scalar` is sent to it).
``--create-heartpole-venv`` makes that environment with pip from PyPI when it is missing: by
default ``.venv-heartpole12`` at the repository's root, or ``--heartpole-venv PATH``, or
``$HEARTPOLE12_VENV``.

Protocol: actions are drawn in advance from the seeded action space (a pool that the timed loop
cycles through), so a figure is the environment's cost and not the sampler's. The scalar loop
resets when an episode ends, and the reset is part of the time; vector envs reset themselves.
Every row first calibrates the number of steps that lasts about ``--seconds``; then the rows
are timed in ``--repeats`` rounds, one repeat of every row per round, so that a burst of load
from another process hits all rows alike and the ratios stay fair. A figure is the median over
the rounds, shown with its min-max. Vector rows count environment steps (N x ``step`` calls).

Targets are ratios inside the one run, printed with PASS/MISS. When ``push-v0`` is selected
it also times ``push-v0`` with a 1k-row and a 100k-row notification log (windows of 100, the
whole log as one episode, the native vector env at N=1,024), the time ``gymnasium.make`` takes
to build the first and a second env on each log (in a fresh interpreter: the first reads and
encodes the file, the second shares it) and the peak memory (resident set size) of 1,024
``push-v0`` environments against one.

``--from-json`` re-reads the rows of an earlier run and reports them again, with the targets
worked out anew, without timing anything. ``--step-cost`` adds the JSON of ``step_cost.py
--json`` (paired CPU time a step against CartPole-v1, the processor recorded): one table per CPU
family, a later file of the same family in place of the earlier one; the page keeps them.

Progress goes to standard error (``gym_suite.progress``): a bar of the rows calibrated and timed
when it is a terminal (the log lines above it), otherwise the log lines and, every few seconds,
a line with the count of rows done.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import inspect
import itertools
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gymnasium
import numpy as np
from _machine import cpu_family, cpu_name  # this folder's helpers (the script's folder is on sys.path)
from _tables import markdown_table

from gym_suite import SPECS
from gym_suite.cli import key_value
from gym_suite.progress import Progress

SYNC_SIZES = (8, 64)
NATIVE_SIZES = (64, 1024, 4096)
TARGET_N = 4096  # the vector size the targets compare at
CARTPOLE = "CartPole-v1"
ROOT = Path(__file__).resolve().parents[2]  # the repository
DEFAULT_HEARTPOLE_VENV = ROOT / ".venv-heartpole12"  # where a heartpole==1.2 venv is looked for by default
HEARTPOLE_PYPI = "heartpole 1.2 (PyPI)"
HEARTPOLE_PYPI_EPISODE = 1000  # steps per heartpole 1.2 episode when heartpole-v0 is not registered
ACTION_POOL = 4096  # scalar actions drawn in advance (the timed loop cycles through them)
BATCH_POOL = 16  # vector action batches drawn in advance
SEED = 0

# Targets, as ratios within one run.
HEARTPOLE_VS_PYPI = 5.0  # heartpole-v0 via make >= 5x heartpole 1.2
SCALAR_VS_CARTPOLE = {"example-v0": 1.0, "target-v0": 1.0}  # via make >= CartPole-v1 via make
# the aims of step_cost.py's tables (--step-cost), per CPU family: every id via make >= 1.5x
# CartPole-v1 via make, every native vector env at N=4,096 >= 1x CartPoleVectorEnv at N=4,096
STEP_COST_AIMS = {"make": 1.5, "native": 1.0}
# step_cost.py --jax's rows, compared with CartPole-v1's native vector env (it has no JAX env of ours)
STEP_COST_REFERENCE = {"jax-vector": "native", "jax-scan": "native"}
NATIVE_VS_CARTPOLE_VECTOR = 0.5  # native vector env at N=4,096 >= 0.5x CartPoleVectorEnv at N=4,096
NATIVE_VS_OWN_SCALAR = 20.0  # native vector env at N=4,096 >= 20x its own scalar env via make
HEARTPOLE_NATIVE_VS_SYNC = (64, 20.0)  # heartpole-v0 native vector env at N=64 >= 20x SyncVectorEnv at N=64
HEARTPOLE_NATIVE_FLOOR = (4096, 5e6)  # heartpole-v0 native vector env at N=4,096 >= 5M env-steps/s
PUSH_ID = "push-v0"
PUSH_LOG_ROWS = (1_000, 100_000)
PUSH_LOG_COST_RATIO = 1.5  # push-v0 step cost with the big log <= 1.5x the cost with the small one
PUSH_VECTOR_N = 1024  # the native vector env on each log
MEMORY_COUNT = 1024


# --------------------------------------------------------------------------------------------
# The timing protocol. These two functions need nothing but itertools, time and numpy: their
# source also runs in the heartpole 1.2 interpreter, so both sides time the very same loop.
# --------------------------------------------------------------------------------------------


def draw_actions(space, count, seed):
    """``count`` actions sampled in advance from ``space`` seeded with ``seed``.

    Numpy scalars become Python numbers (a ``Discrete`` sample is an ``np.int64``; scalar code
    passes a Python int); arrays (``Box`` samples) stay as they are.
    """
    space.seed(seed)
    draws = [space.sample() for _ in range(count)]
    return [d.item() if isinstance(d, np.generic) else d for d in draws]


def time_scalar(step, reset, actions, steps):
    """Seconds for ``steps`` calls of ``step`` cycling through ``actions``, resetting at episode end."""
    pool = itertools.islice(itertools.cycle(actions), steps)
    start = time.perf_counter()
    for action in pool:
        _, _, terminated, truncated, _ = step(action)
        if terminated or truncated:
            reset()
    return time.perf_counter() - start


def time_vector(step, batches, steps):
    """Seconds for ``steps`` calls of a vector env's ``step`` cycling through ``batches``."""
    pool = itertools.islice(itertools.cycle(batches), steps)
    start = time.perf_counter()
    for actions in pool:
        step(actions)
    return time.perf_counter() - start


def calibrate(run: Callable[[int], float], seconds: float) -> int:
    """The number of steps ``run`` takes about ``seconds`` for (the trials double as warm-up)."""
    n, elapsed = 16, run(16)
    while elapsed < min(0.05, seconds / 4):
        n *= 8 if elapsed < 0.005 else 2
        elapsed = run(n)
    elapsed = min(elapsed, run(n))  # a second trial: a burst of load elsewhere must not shorten the repeats
    return max(4, math.ceil(n * seconds / max(elapsed, 1e-9)))


# --------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One measured configuration: ``env_id`` through ``interface`` with ``num_envs`` copies."""

    env_id: str
    interface: str  # raw | gymnasium.make | gym.make | SyncVectorEnv | native vector | heartpole 1.2 (PyPI)
    num_envs: int = 1
    reference: bool = False
    note: str = ""
    steps: int = 0  # env.step calls per repeat
    seconds: list[float] = field(default_factory=list)
    status: str = "ok"  # ok | not measured: <why> | error: <what>

    @property
    def rates(self) -> list[float]:
        return [self.num_envs * self.steps / s for s in self.seconds if s > 0]

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.rates)

    @property
    def median(self) -> float | None:
        return statistics.median(self.rates) if self.ok else None

    def as_dict(self) -> dict:
        rates = self.rates
        return {
            **asdict(self),
            "env_steps_per_repeat": self.num_envs * self.steps,
            "steps_per_second": self.median,
            "min": min(rates) if self.ok else None,
            "max": max(rates) if self.ok else None,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Row:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__})


@dataclass
class Timed:
    """A row ready to time: ``run(n)`` returns the seconds ``n`` steps took; ``close`` frees it."""

    row: Row
    run: Callable[[int], float] | None = None
    close: Callable[[], None] = lambda: None


def _error(row: Row, exc: BaseException) -> Timed:
    row.status = f"error: {type(exc).__name__}: {exc}"
    return Timed(row)


def _closer(env) -> Callable[[], None]:
    def close():
        try:
            env.close()
        except Exception:  # noqa: BLE001 - closing must not hide the figures
            pass

    return close


def scalar_timed(row: Row, make_env: Callable[[], object]) -> Timed:
    """A scalar env (any object with the Gymnasium ``reset``/``step`` API)."""
    try:
        env = make_env()
        env.reset(seed=SEED)
        actions = draw_actions(env.action_space, ACTION_POOL, SEED)
        step, reset = env.step, env.reset

        def run(n):
            reset(seed=SEED)
            return time_scalar(step, reset, actions, n)

        return Timed(row, run, _closer(env))
    except Exception as exc:  # noqa: BLE001 - one broken row must not end the run
        return _error(row, exc)


def vector_timed(row: Row, make_env: Callable[[], object]) -> Timed:
    try:
        env = make_env()
        env.reset(seed=SEED)
        space = env.action_space
        space.seed(SEED)
        batches = [space.sample() for _ in range(BATCH_POOL)]
        step = env.step

        def run(n):
            env.reset(seed=SEED)
            return time_vector(step, batches, n)

        return Timed(row, run, _closer(env))
    except Exception as exc:  # noqa: BLE001
        return _error(row, exc)


def _import_gym():
    """gym 0.26 when installed (it prints a deprecation notice on import), else ``None``. gym gives
    itself the suite's ids on import (gym-suite's ``gym.envs`` entry point)."""
    try:
        import gym
    except ImportError:
        return None
    return gym


def _raw_maker(env_id: str, env_kwargs: dict | None = None):
    """The env class itself, with the registered arguments (its own step limit included), no wrappers."""
    spec = gymnasium.spec(env_id)
    creator = gymnasium.envs.registration.load_env_creator(spec.entry_point)
    return lambda: creator(**{**spec.kwargs, **(env_kwargs or {})})


def _vec_maker(env_id: str, num_envs: int, mode: str, env_kwargs: dict | None = None):
    return lambda: gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, **(env_kwargs or {}))


def suite_timed(env_id: str, env_kwargs: dict | None = None) -> list[Timed]:
    """Every interface of one suite environment (built with ``env_kwargs``)."""
    kw = dict(env_kwargs or {})
    out = [
        scalar_timed(Row(env_id, "raw"), _raw_maker(env_id, kw)),
        scalar_timed(Row(env_id, "gymnasium.make"), lambda: gymnasium.make(env_id, **kw)),
    ]
    gym = _import_gym()
    if gym is None:
        out.append(Timed(Row(env_id, "gym.make", status="not measured: gym is not installed")))
    else:
        out.append(scalar_timed(Row(env_id, "gym.make"), lambda: gym.make(env_id, **kw)))
    out += [vector_timed(Row(env_id, "SyncVectorEnv", n), _vec_maker(env_id, n, "sync", kw)) for n in SYNC_SIZES]
    out += [
        vector_timed(Row(env_id, "native vector", n), _vec_maker(env_id, n, "vector_entry_point", kw))
        for n in NATIVE_SIZES
    ]
    return out


def reference_timed(args) -> list[Timed]:
    out = [scalar_timed(Row(CARTPOLE, "gymnasium.make", reference=True), lambda: gymnasium.make(CARTPOLE))]
    out += [
        vector_timed(Row(CARTPOLE, "native vector", n, reference=True), _vec_maker(CARTPOLE, n, "vector_entry_point"))
        for n in NATIVE_SIZES
    ]
    out.append(heartpole_pypi_timed(args))
    return out


# --------------------------------------------------------------------------------------------
# heartpole==1.2 from PyPI, in its own interpreter
# --------------------------------------------------------------------------------------------

_SIDE_SCRIPT = """
import itertools, json, sys, time
from importlib.metadata import version
import numpy as np
from heartpole import HeartPole

{functions}


class Episodes:
    # heartpole 1.2 never ends an episode, and its env appends to a text log on every step that
    # reset() never clears (each step copies the whole log): the cost of a step grows with the
    # env's age. Here an episode ends after `limit` steps and each one runs in a fresh env, the
    # most favourable way to run it.
    def __init__(self, limit):
        self.limit = limit

    def reset(self, seed=None):
        self.env, self.t = HeartPole(), 0
        self.inner_step = self.env.step
        return self.env.reset()

    def step(self, action):
        obs, reward, terminated, truncated, info = self.inner_step(action)
        self.t += 1
        return obs, reward, terminated, self.t >= self.limit, info


seed, pool, limit = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
np.random.seed(seed)  # heartpole 1.2 draws from numpy's global generator
actions = draw_actions(HeartPole().action_space, pool, seed)
env = Episodes(limit)
print(json.dumps({{name: version(name) for name in ("heartpole", "numpy", "gymnasium")}}), flush=True)
for line in sys.stdin:  # one number of steps per line; answers the seconds they took
    env.reset()
    print(time_scalar(env.step, env.reset, actions, int(line)), flush=True)
"""


def heartpole_venv_path(option: str | None) -> Path:
    """Where the heartpole==1.2 venv is: ``--heartpole-venv``, else $HEARTPOLE12_VENV, else the default."""
    return Path(option or os.environ.get("HEARTPOLE12_VENV") or DEFAULT_HEARTPOLE_VENV)


def find_heartpole_venv(option: str | None) -> Path | None:
    """The python of the heartpole==1.2 venv (see :func:`heartpole_venv_path`), when it exists."""
    python = heartpole_venv_path(option) / "bin" / "python"
    return python if python.exists() else None


def ensure_heartpole_venv(path: Path) -> Path:
    """A virtual environment at ``path`` holding ``heartpole==1.2``, made with pip from PyPI when missing."""
    python = path / "bin" / "python"
    check = [str(python), "-c", "import heartpole"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return path
    print(f"creating {path} with heartpole==1.2 from PyPI ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "heartpole==1.2"], check=True)
    return path


def _heartpole_episode_steps() -> int:
    """heartpole-v0's episode length (its registered ``max_episode_steps``), for heartpole 1.2's episodes."""
    spec = next((s for s in SPECS if s.id == "heartpole-v0"), None)
    return spec.max_episode_steps if spec is not None and spec.max_episode_steps else HEARTPOLE_PYPI_EPISODE


def heartpole_pypi_timed(args) -> Timed:
    """``heartpole==1.2``'s ``HeartPole`` (the class, as its README uses it), in the side interpreter.

    It never ends an episode itself; here each episode lasts as long as one of heartpole-v0 and
    runs in a fresh ``HeartPole`` (see ``Episodes`` in the side script), its best case.
    """
    limit = _heartpole_episode_steps()
    row = Row("heartpole==1.2", HEARTPOLE_PYPI, reference=True, note=f"{limit:,}-step episodes")
    python = find_heartpole_venv(args.heartpole_venv)
    if python is None:
        where = heartpole_venv_path(args.heartpole_venv)
        row.status = f"not measured: no heartpole==1.2 venv at {where} (see --create-heartpole-venv)"
        return Timed(row)
    functions = "\n\n".join(inspect.getsource(f) for f in (draw_actions, time_scalar))
    try:
        side = subprocess.Popen(
            [str(python), "-c", _SIDE_SCRIPT.format(functions=functions), str(SEED), str(ACTION_POOL), str(limit)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = side.stdout.readline()
        if not first:
            why = side.stderr.read().strip().splitlines()[-1:] or ["no output"]
            side.wait()
            row.status = f"not measured: {python} could not run heartpole 1.2: {why[0]}"
            return Timed(row)
        args.side_versions = json.loads(first)
    except (OSError, ValueError) as exc:
        row.status = f"not measured: {type(exc).__name__}: {exc}"
        return Timed(row)

    def run(n):
        side.stdin.write(f"{n}\n")
        side.stdin.flush()
        return float(side.stdout.readline())

    def close():
        try:
            side.stdin.close()
            side.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            side.kill()

    return Timed(row, run, close)


# --------------------------------------------------------------------------------------------
# push-v0: a small and a big notification log; memory of many copies
# --------------------------------------------------------------------------------------------


def write_push_logs(tmp: Path) -> dict[int, Path]:
    """CSV logs of ``PUSH_LOG_ROWS`` rows made from the bundled one: copies of it one after the
    other, each shifted by whole weeks (so ``day_of_week`` and ``hour`` stay true), cut to length."""
    from importlib import resources

    import pandas as pd

    from gym_suite.envs.push_log import BUNDLED_RESOURCE

    package, name = BUNDLED_RESOURCE
    with resources.files(package).joinpath(name).open("rb") as f:
        base = pd.read_csv(f)
    stamps = pd.to_datetime(base["timestamp"])
    weeks = math.ceil(((stamps.max() - stamps.min()).days + 1) / 7)
    copies = []
    for k in range(math.ceil(max(PUSH_LOG_ROWS) / len(base))):
        copy = base.copy()
        copy["timestamp"] = (stamps + pd.Timedelta(weeks=weeks * k)).dt.strftime("%Y-%m-%dT%H:%M:%S")
        copies.append(copy)
    log = pd.concat(copies, ignore_index=True)
    paths = {}
    for rows in PUSH_LOG_ROWS:
        paths[rows] = tmp / f"notifications-{rows}.csv"
        log.iloc[:rows].to_csv(paths[rows], index=False)
    return paths


def push_log_timed(paths: dict[int, Path] | Exception, env_kwargs: dict | None = None) -> list[Timed]:
    """``push-v0`` on a 1k-row and a 100k-row notification log: through ``gymnasium.make`` in
    windows of 100 and as one whole-log episode, and the native vector env at N=1,024."""
    kw = dict(env_kwargs or {})
    out = []
    for n in PUSH_LOG_ROWS:
        windows = Row(PUSH_ID, "gymnasium.make", note=_log_note(n))
        whole = Row(PUSH_ID, "gymnasium.make", note=_log_note(n) + ", whole log")
        vector = Row(PUSH_ID, "native vector", PUSH_VECTOR_N, note=_log_note(n))
        if isinstance(paths, Exception):
            out += [_error(row, paths) for row in (windows, whole, vector)]
            continue
        path = str(paths[n])
        out += [
            scalar_timed(windows, lambda path=path: gymnasium.make(PUSH_ID, **{**kw, "csv_path": path})),
            scalar_timed(
                whole, lambda path=path: gymnasium.make(PUSH_ID, **{**kw, "csv_path": path, "episode_length": None})
            ),
            vector_timed(vector, _vec_maker(PUSH_ID, PUSH_VECTOR_N, "vector_entry_point", {**kw, "csv_path": path})),
        ]
    return out


_MAKE_SCRIPT = """
import json, sys, time
import pandas, gymnasium, gym_suite  # imported first: the first make times reading the log, not importing
path = sys.argv[2]
start = time.perf_counter()
kept = gymnasium.make(sys.argv[1], csv_path=path)  # kept alive: logs no env uses are freed
first = time.perf_counter() - start
start = time.perf_counter()
gymnasium.make(sys.argv[1], csv_path=path)
print(json.dumps({"first": first, "second": time.perf_counter() - start}))
"""


def push_make_seconds(paths: dict[int, Path] | Exception) -> list[dict]:
    """Seconds ``gymnasium.make`` takes to build the first and a second ``push-v0`` on each log,
    in a fresh interpreter (the first reads and encodes the file, the second shares the arrays)."""
    out = []
    for n in PUSH_LOG_ROWS:
        entry = {"rows": n, "first": None, "second": None}
        try:
            if isinstance(paths, Exception):
                raise paths
            done = subprocess.run(
                [sys.executable, "-c", _MAKE_SCRIPT, PUSH_ID, str(paths[n])],
                capture_output=True,
                text=True,
                timeout=600,
                check=True,
            )
            entry.update(json.loads(done.stdout.strip().splitlines()[-1]))
        except Exception as exc:  # noqa: BLE001 - one broken figure must not end the run
            entry["status"] = f"not measured: {type(exc).__name__}"
        out.append(entry)
    return out


_MEMORY_SCRIPT = """
import json, resource, sys
import gymnasium, gym_suite
env_id, how, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
keep = []
if how == "gymnasium.make":
    for i in range(n):
        env = gymnasium.make(env_id)
        env.reset(seed=i)
        env.step(env.action_space.sample())
        keep.append(env)
elif how == "native vector":
    env = gymnasium.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    keep.append(env)
try:  # this process's own peak: Linux carries ru_maxrss over from the parent through fork + exec
    with open("/proc/self/status") as f:
        peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
log = getattr(keep[0].unwrapped, "log", None) if keep else None  # push-v0's shared, read-only arrays
arrays = [v for v in vars(log).values() if hasattr(v, "nbytes")] if log is not None else []
print(json.dumps({"peak_rss_kib": peak, "log_kib": sum(a.nbytes for a in arrays) / 1024 if arrays else None}))
"""


def peak_rss(env_id: str, how: str, count: int) -> dict:
    """Peak resident set size (MiB) of a fresh interpreter holding ``count`` envs.

    It is the process's high-water mark ``VmHWM`` where ``/proc`` has it, else ``ru_maxrss``
    (which, on Linux, starts from the parent's peak: a child made by fork + exec inherits it).
    """
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_SCRIPT, env_id, how, str(count)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def memory_of_copies(env_id: str, count: int = MEMORY_COUNT) -> dict:
    """Peak RSS of 1 against ``count`` copies of ``env_id``: shared data shows as a small increment."""
    plan = [
        ("python + import gym_suite, no env", "none", 0),
        (f"1 {env_id} (gymnasium.make)", "gymnasium.make", 1),
        (f"{count:,} {env_id} (gymnasium.make)", "gymnasium.make", count),
        (f"{env_id} native vector env, N={count:,}", "native vector", count),
    ]
    runs, log_kib = [], None
    for what, how, n in plan:
        try:
            measured = peak_rss(env_id, how, n)
            runs.append(
                {"what": what, "interface": how, "num_envs": n, "peak_rss_mib": measured["peak_rss_kib"] / 1024}
            )
            log_kib = measured.get("log_kib") or log_kib
        except (OSError, ValueError, IndexError, subprocess.SubprocessError) as exc:
            runs.append(
                {
                    "what": what,
                    "interface": how,
                    "num_envs": n,
                    "peak_rss_mib": None,
                    "status": f"not measured: {type(exc).__name__}",
                }
            )
    one, many = runs[1]["peak_rss_mib"], runs[2]["peak_rss_mib"]
    per_env = None if one is None or many is None else (many - one) * 1024 / (count - 1)
    return {"env_id": env_id, "count": count, "runs": runs, "per_extra_env_kib": per_env, "log_kib": log_kib}


# --------------------------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------------------------


def _find(rows, env_id, interface, num_envs=1, note=""):
    for row in rows:
        if (row.env_id, row.interface, row.num_envs, row.note) == (env_id, interface, num_envs, note):
            return row
    return None


def _target(name, top, bottom, need, cost=False) -> dict:
    """``top / bottom`` of the median rates; with ``cost``, of the step costs (1 / rate) instead."""
    missing = [r for r in (top, bottom) if r is None or not r.ok]
    if missing:
        why = "; ".join("row absent" if r is None else r.status for r in missing)
        return {"target": name, "ratio": None, "need": need, "result": "not measured", "why": why}
    ratio = bottom.median / top.median if cost else top.median / bottom.median
    passed = ratio <= need if cost else ratio >= need
    return {"target": name, "ratio": ratio, "need": need, "result": "PASS" if passed else "MISS"}


def targets(rows: list[Row], ids: list[str]) -> list[dict]:
    out = []
    made = {env_id: _find(rows, env_id, "gymnasium.make") for env_id in ids}
    if "heartpole-v0" in ids:
        pypi = next((r for r in rows if r.interface == HEARTPOLE_PYPI), None)
        name = f"heartpole-v0 via gymnasium.make >= {HEARTPOLE_VS_PYPI:g}x heartpole 1.2"
        out.append(_target(name, made["heartpole-v0"], pypi, HEARTPOLE_VS_PYPI))
        n, need = HEARTPOLE_NATIVE_VS_SYNC
        name = f"heartpole-v0 native N={n} >= {need:g}x SyncVectorEnv N={n}"
        out.append(
            _target(
                name,
                _find(rows, "heartpole-v0", "native vector", n),
                _find(rows, "heartpole-v0", "SyncVectorEnv", n),
                need,
            )
        )
        n, floor = HEARTPOLE_NATIVE_FLOOR
        native = _find(rows, "heartpole-v0", "native vector", n)
        name = f"heartpole-v0 native N={n:,} >= {floor / 1e6:g}M env-steps/s"
        if native is None or not native.ok:
            out.append({"target": name, "ratio": None, "need": floor, "result": "not measured", "why": "row absent"})
        else:
            ratio = native.median / floor
            out.append({"target": name, "ratio": ratio, "need": 1.0, "result": "PASS" if ratio >= 1 else "MISS"})
    cartpole = _find(rows, CARTPOLE, "gymnasium.make")
    for env_id, need in SCALAR_VS_CARTPOLE.items():
        if env_id in ids:
            name = f"{env_id} via gymnasium.make >= {need:g}x {CARTPOLE} via gymnasium.make"
            out.append(_target(name, made[env_id], cartpole, need))
    cartpole_vector = _find(rows, CARTPOLE, "native vector", TARGET_N)
    for env_id in ids:
        native = _find(rows, env_id, "native vector", TARGET_N)
        name = f"{env_id} native N={TARGET_N:,} >= {NATIVE_VS_CARTPOLE_VECTOR:g}x CartPoleVectorEnv N={TARGET_N:,}"
        out.append(_target(name, native, cartpole_vector, NATIVE_VS_CARTPOLE_VECTOR))
        name = f"{env_id} native N={TARGET_N:,} >= {NATIVE_VS_OWN_SCALAR:g}x {env_id} via gymnasium.make"
        out.append(_target(name, native, made[env_id], NATIVE_VS_OWN_SCALAR))
    if PUSH_ID in ids:
        small, big = (_find(rows, PUSH_ID, "gymnasium.make", 1, _log_note(n)) for n in PUSH_LOG_ROWS)
        name = (
            f"{PUSH_ID} step cost with a {PUSH_LOG_ROWS[1]:,}-row log <= {PUSH_LOG_COST_RATIO:g}x "
            f"with a {PUSH_LOG_ROWS[0]:,}-row log"
        )
        out.append(_target(name, big, small, PUSH_LOG_COST_RATIO, cost=True))
    return out


def _log_note(rows: int) -> str:
    return f"{rows:,}-row log"


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------


def _row_cells(row: Row) -> list[str]:
    name = row.env_id + (" (ref)" if row.reference else "")
    interface = row.interface + (f", {row.note}" if row.note else "")
    if not row.ok:
        return [name, interface, f"{row.num_envs:,}", row.status, ""]
    rates = row.rates
    return [name, interface, f"{row.num_envs:,}", f"{row.median:,.0f}", f"{min(rates):,.0f} - {max(rates):,.0f}"]


def rows_table(rows: list[Row]) -> str:
    header = ["id", "interface", "N", "env-steps/s (median)", "min - max"]
    return markdown_table(header, [_row_cells(r) for r in rows], right={2, 3, 4})


def targets_table(found: list[dict]) -> str:
    lines = []
    for t in found:
        ratio = "-" if t["ratio"] is None else f"{t['ratio']:.2f}x"
        result = t["result"] if t["result"] != "not measured" else f"not measured ({t['why']})"
        lines.append([t["target"], ratio, result])
    return markdown_table(["target (ratio of medians, same run)", "ratio", "result"], lines, right={1})


def memory_table(memory: dict) -> str:
    lines = [
        [m["what"], f"{m['peak_rss_mib']:,.1f}" if m["peak_rss_mib"] is not None else m.get("status", "-")]
        for m in memory["runs"]
    ]
    table = markdown_table(["process", "peak RSS (MiB)"], lines, right={1})
    if memory["per_extra_env_kib"] is not None:
        table += f"\n\nEach {memory['env_id']} env past the first adds {memory['per_extra_env_kib']:,.1f} KiB"
        if memory.get("log_kib"):
            table += (
                f"; the encoded log they share takes {memory['log_kib']:,.0f} KiB once "
                f"(a copy per env would take {memory['log_kib'] * memory['count'] / 1024:,.0f} MiB)"
            )
        table += "."
    return table


def make_table(make: list[dict]) -> str:
    def cell(seconds):
        return "-" if seconds is None else f"{seconds * 1e3:,.2f}"

    lines = [[f"{m['rows']:,}", cell(m["first"]), cell(m["second"])] for m in make]
    return markdown_table([f"{PUSH_ID} log rows", "first make (ms)", "second make (ms)"], lines, right={0, 1, 2})


def machine_info() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for name in ("gym-suite", "gymnasium", "numpy", "pandas", "gym"):
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = None
    return {
        "cpu": cpu_name(),
        "cpu_family": cpu_family(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        **versions,
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def render_text(result: dict, rows: list[Row]) -> str:
    m, s = result["machine"], result["settings"]
    per = f"{s['steps']} env steps" if s["steps"] else f"~{s['seconds']:g} s"
    pypi = result["heartpole_pypi_venv"]
    parts = [
        f"{m['cpu']}, {m['cpu_count']} cores, Python {m['python']}, gymnasium {m['gymnasium']}, numpy {m['numpy']}, "
        f"gym {m['gym'] or 'not installed'}"
        + (
            f"; heartpole {pypi['heartpole']} with numpy {pypi['numpy']}, gymnasium {pypi['gymnasium']}" if pypi else ""
        ),
        f"Median of {s['repeats']} interleaved rounds of {per} per row, actions drawn in advance; "
        "vector rows count env steps (N x step calls).",
        "",
        rows_table(rows),
        "",
        targets_table(result["targets"]),
    ]
    if result.get("push_make"):
        parts += ["", make_table(result["push_make"])]
    if result["memory"] is not None:
        parts += ["", memory_table(result["memory"])]
    return "\n".join(parts)


def step_cost_entry(path: str) -> dict:
    """The JSON of ``step_cost.py --json``: its machine, command, date and this checkout's rounds."""
    found = json.loads(Path(path).read_text())
    if not {"machine", "command", "date", "seconds"} <= found.keys() or not found["seconds"]:
        raise ValueError("not the JSON of step_cost.py --json")
    return {k: found[k] for k in ("machine", "command", "date", "settings")} | {"seconds": found["seconds"][0]}


def _cpu_key(entry: dict) -> tuple[str, str]:
    return entry["machine"].get("cpu", ""), entry["machine"].get("cpu_family", "")


def merge_step_cost(kept: list[dict], new: list[dict]) -> list[dict]:
    """One entry per CPU family (model name and family numbers): a new one replaces a kept one."""
    out = {_cpu_key(e): e for e in kept}
    out.update({_cpu_key(e): e for e in new})
    return list(out.values())


def step_cost_table(entry: dict) -> str:
    """A CPU family's table: µs a step (fastest and median round), the speed against CartPole-v1 of
    the same interface (fastest rounds, and the median of the rounds' ratios: the rounds are paired)
    and the aim it is held to."""
    seconds = entry["seconds"]
    lines = []
    for key, times in seconds.items():
        env_id, how, n = key.split("|")
        if env_id == CARTPOLE:
            continue
        cartpole = seconds.get(f"{CARTPOLE}|{STEP_COST_REFERENCE.get(how, how)}|{n}")
        best = median = "-"
        if cartpole:
            best = f"{min(cartpole) / min(times):.2f}x"
            median = f"{statistics.median(c / t for c, t in zip(cartpole, times)):.2f}x"
        need = STEP_COST_AIMS.get(how) if how == "make" or int(n) == TARGET_N else None
        aim = "-"
        if need is not None and cartpole:
            aim = f">= {need:g}x: " + ("PASS" if min(cartpole) / min(times) >= need else "MISS")
        lines.append(
            [
                env_id,
                how,
                f"{int(n):,}",
                f"{min(times) * 1e6:,.2f}",
                f"{statistics.median(times) * 1e6:,.2f}",
                best,
                median,
                aim,
            ]
        )
    for how, n in sorted(
        {tuple(k.split("|")[1:]) for k in seconds if k.startswith(CARTPOLE + "|")}, key=lambda hn: (hn[0], int(hn[1]))
    ):
        times = seconds[f"{CARTPOLE}|{how}|{n}"]
        lines.append(
            [
                f"{CARTPOLE} (ref)",
                how,
                f"{int(n):,}",
                f"{min(times) * 1e6:,.2f}",
                f"{statistics.median(times) * 1e6:,.2f}",
                "1.00x",
                "1.00x",
                "-",
            ]
        )
    header = [
        "id",
        "interface",
        "N",
        "µs a step (fastest)",
        "µs (median)",
        "vs CartPole",
        "vs CartPole (median)",
        "aim",
    ]
    return markdown_table(header, lines, right={2, 3, 4, 5, 6})


def step_cost_sections(entries: list[dict]) -> str:
    parts = []
    for e in entries:
        m, s = e["machine"], e.get("settings") or {}
        parts += [
            f"## Paired CPU time a step: {m.get('cpu', '?')} ({m.get('cpu_family') or 'family not recorded'})",
            "",
            f"Measured {e['date']} with `{e['command']}`: {s.get('rounds', '?')} rounds, each id's env and "
            "CartPole-v1's timed in the same process with `time.process_time`; Python "
            f"{m.get('python', '?')}, {m.get('versions', '?')}; load average {m.get('load_average_at_start', '?')} "
            f"at the start, {m.get('load_average_at_end', '?')} at the end. `make`: the scalar env through "
            "`gymnasium.make`; `native`: the native vector env (µs a `step` call of N envs)"
            + (
                "; `jax-vector`: the JAX vector env (`gym_suite_jax/<id>`) through Gymnasium's API, `jax-scan`: its "
                "compiled rollout (µs a batch step; both against CartPole-v1's native vector env)"
                if any("|jax-" in key for key in e["seconds"])
                else ""
            )
            + ". A speed above 1x is faster than CartPole-v1; an aim holds only where it holds on every CPU family.",
            "",
            step_cost_table(e),
            "",
        ]
    return "\n".join(parts + [AIMS_MISSED])


#: Why the missed aims are missed: what each guarantee costs, measured once (not by this script) on
#: the AMD EPYC 2-core machine on 2026-11-28, by putting a constant in place of one part of a step.
AIMS_MISSED = """\
**Where an aim is missed, what it would cost to meet it.** Measured 2026-11-28 on the AMD EPYC
2-core machine (µs of CPU time a step, the fastest of 8 interleaved rounds; each part replaced by
a constant in turn):

- Through `make`, push-v0 and push-v1 pay for their fresh `Dict` observation (5 and 7 `(1,)`
  arrays of their own a step: 2.5 and 4.6 µs, push-v1 starting a new day every ~4 steps);
  heartpole and target for a fresh float32 observation (0.6-0.7 µs, which CartPole pays too) and
  the info dict (0.2-0.6 µs); target for its action check (0.2 µs). Rules written once for every
  backend cost heartpole-v0 0.4 µs a step against the same rules inlined for floats. Handing out
  a shared observation array would close the gaps and is not done: a caller that keeps an
  observation would see it change.
- At N=4,096 heartpole-v1's native step pays 47 µs for per-row draws on the scalar env's stream
  (so that row *i* replays the scalar env seeded alike), 54 µs for the night's hazard and 25 µs
  for `SyncVectorEnv`'s info; without all three its rules (four sigmoids, about 40 array passes)
  would still be 0.76x `CartPoleVectorEnv`. target-v0 spends 45 % of its step restarting the
  rows that hit (42 draws a start, a fixed count that keeps each row on the scalar env's stream).
- XLA does not pay on a CPU at that size: `step_cost.py --jax` times the JAX vector env and its
  compiled rollout, and at N=4,096 both are slower than the numpy env for every id (a threefry key
  per row costs heartpole-v1 295 µs of draws a step; its transition compiled on numpy's draws took
  448 µs against numpy's 225). At N=64 the compiled rollout is the fastest route.
"""


HOW_IT_IS_MEASURED = """\
## How it is measured

- One process times every row; the rows are timed in interleaved rounds (one repeat of every
  row per round), so a burst of load from another process slows all rows alike. A figure is
  the median over the rounds, with the fastest and slowest round beside it. The number of
  steps of a repeat is calibrated once per row to last about `--seconds`.
- Actions are drawn in advance from the seeded action space (a `Discrete` action as a Python
  int, a `Box` action as its float32 array) and cycled through; the scalar loop resets when an
  episode ends (the reset counts), vector envs reset themselves. Vector rows count env steps:
  N x `step` calls.
- `raw` is the env class with the registered arguments and no wrapper; `gymnasium.make` adds
  Gymnasium's `TimeLimit`, `OrderEnforcing` and `PassiveEnvChecker`; `gym.make` is gym 0.26.2
  through gym-suite's adapter; `SyncVectorEnv` holds N `gymnasium.make` envs; `native vector`
  is the env's own vector env from `gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`.
- heartpole 1.2 (PyPI) pins `numpy<2` and `gymnasium 0.29`, so it runs in its own
  interpreter (`--heartpole-venv`), which times it with the same loop (the source of
  `time_scalar` and `draw_actions` is sent to it) in the same rounds. It never ends an episode,
  and its env appends to a text log on every step that `reset()` does not clear: a step's cost
  grows with the env's age. It is timed in episodes as long as heartpole-v0's, each in a fresh
  `HeartPole()`: its most favourable case.
- push-v0's logs of 1,000 and 100,000 rows are copies of the bundled log placed one after the
  other (each shifted by whole weeks), cut to length, read from CSV files (`csv_path=`). The
  times to make the first and a second env on a log are taken in a fresh interpreter that has
  already imported pandas: the first reads and encodes the file, the second shares its arrays.
- Peak memory is the high-water mark of the resident set (`VmHWM`) of a fresh interpreter that
  builds the envs, resets them and takes one step.
"""


def render_markdown(result: dict, text: str, json_path: str | None = None) -> str:
    where = f"; the same figures, with every repeat, are in `{Path(json_path).name}`" if json_path else ""
    return (
        "# gym-suite bench\n\n"
        f"Measured {result['date']} with `{result['command']}` (took {result['wall_seconds']:.0f} s){where}.\n\n"
        + text
        + "\n\n"
        + (step_cost_sections(result["step_cost"]) + "\n" if result.get("step_cost") else "")
        + HOW_IT_IS_MEASURED
    )


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python gym-suite/benchmarks/bench.py",
        description="Steps per second of every gym-suite environment against reference envs, in one run.",
    )
    parser.add_argument("--quick", action="store_true", help="a short run: 3 rounds of ~0.25 s per row")
    parser.add_argument("--ids", nargs="+", metavar="ID", help="suite ids to time (default: every registered id)")
    parser.add_argument("--repeats", type=int, help="timed rounds (default 5, --quick 3)")
    parser.add_argument("--seconds", type=float, help="length of one repeat of a row (default 1, --quick 0.25)")
    parser.add_argument("--steps", type=int, help="fixed env steps per repeat instead of --seconds")
    parser.add_argument(
        "--env-kwargs",
        nargs="+",
        type=key_value,
        default=[],
        metavar="KEY=VALUE",
        help="arguments of the suite environments timed (not of the reference rows)",
    )
    parser.add_argument("--json", metavar="PATH", help="also save every figure as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="also save the tables as a markdown page")
    parser.add_argument(
        "--from-json",
        metavar="PATH",
        help="time nothing: report the rows of an earlier run's JSON, with the targets worked out anew",
    )
    parser.add_argument(
        "--step-cost",
        nargs="+",
        default=[],
        metavar="PATH",
        help="add the JSON of step_cost.py --json: a table per CPU family (with --from-json: beside the kept ones)",
    )
    parser.add_argument(
        "--heartpole-venv",
        metavar="PATH",
        help="a virtual environment with heartpole==1.2 installed, for its reference row "
        f"(default: $HEARTPOLE12_VENV, else {DEFAULT_HEARTPOLE_VENV})",
    )
    parser.add_argument(
        "--create-heartpole-venv",
        action="store_true",
        help="make that virtual environment with pip from PyPI when it is missing",
    )
    parser.add_argument(
        "--jax",
        action="store_true",
        help="time only the JAX rollout (jit, vmap over 4,096 envs, scan over 1,000 steps) of every "
        "id and of gymnax's CartPole-v1 (needs the jax extra)",
    )
    return parser


def jax_rollout_rows(ids: list[str], num_envs: int = 4096, steps: int = 1000, repeats: int = 3) -> list[dict]:
    """The JAX rollout of each id (gym_suite.jax.make) and of gymnax's CartPole-v1: random actions,
    ``jax.vmap`` over ``num_envs`` envs, ``jax.lax.scan`` over ``steps`` steps, all under one
    ``jax.jit``; the compile time (first call) apart from the best of ``repeats`` timed calls."""
    import gymnax
    import jax

    import gym_suite.jax

    makers = [(i, lambda i=i: gym_suite.jax.make(i)) for i in ids]
    makers.append(("gymnax CartPole-v1", lambda: gymnax.make("CartPole-v1")))
    rows = []
    for name, make in makers:
        env, params = make()
        space = env.action_space(params)

        @jax.jit
        def rollout(key, env=env, params=params, space=space):
            key, reset_key = jax.random.split(key)
            _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(reset_key, num_envs), params)

            def one_step(state, key):
                action_key, step_key = jax.random.split(key)
                actions = jax.vmap(space.sample)(jax.random.split(action_key, num_envs))
                out = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                    jax.random.split(step_key, num_envs), state, actions, params
                )
                return out[1], out[2].sum()

            state, rewards = jax.lax.scan(one_step, state, jax.random.split(key, steps))
            return rewards.sum()

        start = time.perf_counter()
        compiled = rollout.lower(jax.random.key(0)).compile()
        compile_seconds = time.perf_counter() - start
        compiled(jax.random.key(0)).block_until_ready()  # warm
        best = math.inf
        for k in range(repeats):
            start = time.perf_counter()
            compiled(jax.random.key(k + 1)).block_until_ready()
            best = min(best, time.perf_counter() - start)
        rows.append(
            {
                "env": name,
                "num_envs": num_envs,
                "steps": steps,
                "compile_seconds": compile_seconds,
                "run_seconds": best,
                "steps_per_second": num_envs * steps / best,
            }
        )
        print(
            f"jax rollout {name}: {num_envs * steps / best:,.0f} steps/s (compile {compile_seconds:.2f} s)",
            file=sys.stderr,
            flush=True,
        )
    return rows


def jax_rollout_table(rows: list[dict]) -> str:
    lines = [
        [
            r["env"],
            f"{r['num_envs']:,}",
            f"{r['steps']:,}",
            f"{r['compile_seconds']:.2f}",
            f"{r['run_seconds']:.3f}",
            f"{r['steps_per_second']:,.0f}",
        ]
        for r in rows
    ]
    return markdown_table(
        ["jax rollout", "envs", "steps", "compile s", "run s", "steps/s"], lines, right=frozenset(range(1, 6))
    )


def time_rows(timed: list[Timed], args) -> None:
    """Calibrate every row, then time them in ``args.repeats`` interleaved rounds (a progress bar
    on a terminal counts the rows calibrated and timed; elsewhere a log line every few seconds)."""
    with Progress(len(timed) * (1 + args.repeats), desc="bench", unit="row") as progress:
        _time_rows(timed, args, progress)


def _time_rows(timed: list[Timed], args, progress: Progress) -> None:
    for t in timed:
        if t.run is not None:
            try:
                if args.steps is None:
                    t.row.steps = calibrate(t.run, args.seconds)
                else:
                    t.row.steps = max(1, args.steps // t.row.num_envs)
                    t.run(min(t.row.steps, 16))  # warm-up
            except Exception as exc:  # noqa: BLE001 - one broken row must not end the run
                _error(t.row, exc)
                t.run = None
        cells = "  ".join(_row_cells(t.row)[:3])
        progress.write(f"  ready  {cells}  " + (f"{t.row.steps:,} steps a repeat" if t.run else t.row.status))
        progress.update(1)
    for round_ in range(args.repeats):
        for t in timed:
            progress.update(1)
            if t.run is None:
                continue
            try:
                t.row.seconds.append(t.run(t.row.steps))
            except Exception as exc:  # noqa: BLE001
                _error(t.row, exc)
                t.run = None
        progress.write(f"  round {round_ + 1}/{args.repeats} done")


def report(result: dict, args) -> int:
    """Print the tables of ``result`` and save them where ``--json`` and ``--markdown`` say."""
    rows = [Row.from_dict(r) for r in result["rows"]]
    result["targets"] = targets(rows, result["ids"])
    result["step_cost"] = merge_step_cost(result.get("step_cost") or [], args.step_cost_entries)
    text = render_text(result, rows)
    print(text)
    if result["step_cost"]:
        print("\n" + step_cost_sections(result["step_cost"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(render_markdown(result, text, args.json))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # read before anything is timed
        args.step_cost_entries = [step_cost_entry(p) for p in args.step_cost]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        parser.error(f"--step-cost: {type(exc).__name__}: {exc}")
    if args.from_json:
        try:
            result = json.loads(Path(args.from_json).read_text())
            Row.from_dict(result["rows"][0])
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            parser.error(f"--from-json {args.from_json}: not a bench result ({type(exc).__name__}: {exc})")
        return report(result, args)
    known = [spec.id for spec in SPECS]
    ids = args.ids or known
    unknown = [i for i in ids if i not in known]
    if unknown:
        parser.error(f"unknown id(s) {unknown}; registered ids are {known}")
    if args.jax:
        print(jax_rollout_table(jax_rollout_rows(ids)))
        return 0
    if args.repeats is None:
        args.repeats = 3 if args.quick else 5
    if args.seconds is None:
        args.seconds = 0.25 if args.quick else 1.0
    if args.repeats < 1 or args.seconds <= 0 or (args.steps is not None and args.steps < 1):
        parser.error("--repeats, --seconds and --steps must be positive")
    env_kwargs = dict(args.env_kwargs)
    if args.create_heartpole_venv:
        ensure_heartpole_venv(heartpole_venv_path(args.heartpole_venv))
    args.side_versions = None
    started = time.perf_counter()
    machine = machine_info()
    print(f"bench: {', '.join(ids)}; {args.repeats} rounds", file=sys.stderr, flush=True)

    push_make = None
    with tempfile.TemporaryDirectory(prefix="gym-suite-bench-") as tmp:
        timed = reference_timed(args)
        for env_id in ids:
            timed += suite_timed(env_id, env_kwargs)
        if PUSH_ID in ids:
            try:
                paths = write_push_logs(Path(tmp))
            except Exception as exc:  # noqa: BLE001 - the rows say what went wrong
                paths = exc
            timed += push_log_timed(paths, env_kwargs)
        time_rows(timed, args)
        for t in timed:
            t.close()
        if PUSH_ID in ids:
            print(f"  time to make {PUSH_ID} on each log ...", file=sys.stderr, flush=True)
            push_make = push_make_seconds(paths)
    gc.collect()
    memory = None
    if PUSH_ID in ids:
        print(f"  peak memory of {MEMORY_COUNT:,} {PUSH_ID} envs against one ...", file=sys.stderr, flush=True)
        memory = memory_of_copies(PUSH_ID)
    machine["load_average_at_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    command = "python gym-suite/benchmarks/bench.py " + " ".join(argv if argv is not None else sys.argv[1:])
    result = {
        "command": command.strip(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine,
        "heartpole_pypi_venv": args.side_versions,
        "settings": {
            "repeats": args.repeats,
            "seconds": args.seconds,
            "steps": args.steps,
            "quick": args.quick,
            "seed": SEED,
            "action_pool": ACTION_POOL,
            "batch_pool": BATCH_POOL,
            "env_kwargs": env_kwargs,
        },
        "ids": ids,
        "rows": [t.row.as_dict() for t in timed],
        "push_make": push_make,
        "memory": memory,
        "wall_seconds": time.perf_counter() - started,
    }
    return report(result, args)


if __name__ == "__main__":
    sys.exit(main())
