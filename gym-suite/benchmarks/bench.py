"""Steps per second of every gym-suite environment next to reference environments, in one run.

    python gym-suite/benchmarks/bench.py [--quick] [--ids ID [ID ...]] [--json PATH] [--markdown PATH]
    python gym-suite/benchmarks/bench.py --ids heartpole-v0 --create-heartpole-venv   # against heartpole 1.2
    python gym-suite/benchmarks/bench.py --from-json docs/bench.json --step-cost step_cost.json \
        --json docs/bench.json --markdown docs/bench.md   # adds step_cost.py's table of a CPU family

The page's "How it is measured" (``_bench_page.md``) gives the protocol.
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
from _tables import markdown_table, page

from gym_suite import SPECS
from gym_suite.cli import key_value
from gym_suite.progress import Progress

SYNC_SIZES = (8, 64)
NATIVE_SIZES = (64, 1024, 4096)
VECTOR = ("SyncVectorEnv", "native vector")  # the interfaces timed as vector envs
TARGET_N = 4096  # the vector size the targets compare at
CARTPOLE = "CartPole-v1"
ROOT = Path(__file__).resolve().parents[2]  # the repository
PAGE = Path(__file__).with_name("_bench_page.md")  # the page's prose
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


# The timing protocol. These functions need nothing but itertools, time and numpy: their source also
# runs in the heartpole 1.2 interpreter and in step_cost.py's, so every side times the very same loop.


def draw_actions(space, count, seed):
    """``count`` actions sampled in advance from ``space`` seeded with ``seed`` (numpy scalars as
    Python numbers, as scalar code passes them; ``Box`` samples stay arrays)."""
    space.seed(seed)
    draws = [space.sample() for _ in range(count)]
    return [d.item() if isinstance(d, np.generic) else d for d in draws]


def time_scalar(step, reset, actions, steps, clock=time.perf_counter):
    """Seconds of ``clock`` for ``steps`` calls of ``step`` cycling through ``actions``, resetting at episode end."""
    pool = itertools.islice(itertools.cycle(actions), steps)
    start = clock()
    for action in pool:
        _, _, terminated, truncated, _ = step(action)
        if terminated or truncated:
            reset()
    return clock() - start


def time_vector(step, batches, steps, clock=time.perf_counter):
    """Seconds of ``clock`` for ``steps`` calls of a vector env's ``step`` cycling through ``batches``."""
    pool = itertools.islice(itertools.cycle(batches), steps)
    start = clock()
    for actions in pool:
        step(actions)
    return clock() - start


def calibrate(run: Callable[[int], float], seconds: float) -> int:
    """The number of steps ``run`` takes about ``seconds`` for (the trials double as warm-up)."""
    n, elapsed = 16, run(16)
    while elapsed < min(0.05, seconds / 4):
        n *= 8 if elapsed < 0.005 else 2
        elapsed = run(n)
    elapsed = min(elapsed, run(n))  # a second trial: a burst of load elsewhere must not shorten the repeats
    return max(4, math.ceil(n * seconds / max(elapsed, 1e-9)))


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
        rates, ok = self.rates, self.ok
        return {
            **asdict(self),
            "env_steps_per_repeat": self.num_envs * self.steps,
            "steps_per_second": self.median,
            "min": min(rates) if ok else None,
            "max": max(rates) if ok else None,
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


def env_timed(row: Row, make_env: Callable[[], object]) -> Timed:
    """The env ``make_env`` builds (a vector env when ``row.interface`` is one of :data:`VECTOR`)."""
    try:
        env = make_env()
        env.reset(seed=SEED)
        if row.interface in VECTOR:
            env.action_space.seed(SEED)
            batches = [env.action_space.sample() for _ in range(BATCH_POOL)]
            time_it = lambda n: time_vector(env.step, batches, n)  # noqa: E731
        else:
            actions = draw_actions(env.action_space, ACTION_POOL, SEED)
            time_it = lambda n: time_scalar(env.step, env.reset, actions, n)  # noqa: E731
    except Exception as exc:  # noqa: BLE001 - one broken row must not end the run
        return _error(row, exc)

    def run(n):
        env.reset(seed=SEED)
        return time_it(n)

    def close():
        try:
            env.close()
        except Exception:  # noqa: BLE001 - closing must not hide the figures
            pass

    return Timed(row, run, close)


def _vec_maker(env_id: str, num_envs: int, mode: str = "vector_entry_point", env_kwargs: dict | None = None):
    return lambda: gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, **(env_kwargs or {}))


def suite_timed(env_id: str, kw: dict) -> list[Timed]:
    """Every interface of one suite environment (built with ``kw``)."""
    spec = gymnasium.spec(env_id)  # raw: the env class with the registered arguments, no wrappers
    creator = gymnasium.envs.registration.load_env_creator(spec.entry_point)
    out = [
        env_timed(Row(env_id, "raw"), lambda: creator(**{**spec.kwargs, **kw})),
        env_timed(Row(env_id, "gymnasium.make"), lambda: gymnasium.make(env_id, **kw)),
    ]
    try:  # gym 0.26 gives itself the suite's ids on import (gym-suite's ``gym.envs`` entry point)
        import gym

        out.append(env_timed(Row(env_id, "gym.make"), lambda: gym.make(env_id, **kw)))
    except ImportError:
        out.append(Timed(Row(env_id, "gym.make", status="not measured: gym is not installed")))
    out += [env_timed(Row(env_id, "SyncVectorEnv", n), _vec_maker(env_id, n, "sync", kw)) for n in SYNC_SIZES]
    out += [env_timed(Row(env_id, "native vector", n), _vec_maker(env_id, n, env_kwargs=kw)) for n in NATIVE_SIZES]
    return out


def reference_timed(args) -> list[Timed]:
    out = [env_timed(Row(CARTPOLE, "gymnasium.make", reference=True), lambda: gymnasium.make(CARTPOLE))]
    out += [env_timed(Row(CARTPOLE, "native vector", n, reference=True), _vec_maker(CARTPOLE, n)) for n in NATIVE_SIZES]
    return out + [heartpole_pypi_timed(args)]


# heartpole==1.2 from PyPI pins numpy<2 and gymnasium 0.29: it runs in its own interpreter.

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


def ensure_heartpole_venv(path: Path) -> Path:
    """A virtual environment at ``path`` holding ``heartpole==1.2``, made with pip from PyPI when missing."""
    python = path / "bin" / "python"
    if python.exists() and subprocess.run([str(python), "-c", "import heartpole"], capture_output=True).returncode == 0:
        return path
    print(f"creating {path} with heartpole==1.2 from PyPI ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "heartpole==1.2"], check=True)
    return path


def heartpole_pypi_timed(args) -> Timed:
    """``heartpole==1.2``'s ``HeartPole`` in the side interpreter, in episodes as long as heartpole-v0's,
    each in a fresh ``HeartPole`` (it never ends an episode itself): its best case."""
    spec = next((s for s in SPECS if s.id == "heartpole-v0"), None)
    limit = spec.max_episode_steps if spec is not None and spec.max_episode_steps else HEARTPOLE_PYPI_EPISODE
    row = Row("heartpole==1.2", HEARTPOLE_PYPI, reference=True, note=f"{limit:,}-step episodes")
    python = heartpole_venv_path(args.heartpole_venv) / "bin" / "python"
    if not python.exists():
        where = heartpole_venv_path(args.heartpole_venv)
        row.status = f"not measured: no heartpole==1.2 venv at {where} (see --create-heartpole-venv)"
        return Timed(row)
    script = _SIDE_SCRIPT.format(functions="\n\n".join(inspect.getsource(f) for f in (draw_actions, time_scalar)))
    try:
        side = subprocess.Popen(
            [str(python), "-c", script, str(SEED), str(ACTION_POOL), str(limit)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
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


# push-v0: a small and a big notification log; memory of many copies


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
    copies = [
        base.assign(timestamp=(stamps + pd.Timedelta(weeks=weeks * k)).dt.strftime("%Y-%m-%dT%H:%M:%S"))
        for k in range(math.ceil(max(PUSH_LOG_ROWS) / len(base)))
    ]
    log = pd.concat(copies, ignore_index=True)
    paths = {rows: tmp / f"notifications-{rows}.csv" for rows in PUSH_LOG_ROWS}
    for rows, path in paths.items():
        log.iloc[:rows].to_csv(path, index=False)
    return paths


def _log_note(rows: int) -> str:
    return f"{rows:,}-row log"


def push_log_timed(paths: dict[int, Path] | Exception, kw: dict) -> list[Timed]:
    """``push-v0`` on each log: through ``gymnasium.make`` in windows of 100 and as one whole-log
    episode, and the native vector env at N=1,024."""
    out = []
    for n in PUSH_LOG_ROWS:
        note = _log_note(n)
        rows = [Row(PUSH_ID, "gymnasium.make", note=note), Row(PUSH_ID, "gymnasium.make", note=note + ", whole log")]
        rows.append(Row(PUSH_ID, "native vector", PUSH_VECTOR_N, note=note))
        if isinstance(paths, Exception):
            out += [_error(row, paths) for row in rows]
            continue
        on_log = {**kw, "csv_path": str(paths[n])}
        makers = [
            lambda a=on_log: gymnasium.make(PUSH_ID, **a),
            lambda a=on_log: gymnasium.make(PUSH_ID, **{**a, "episode_length": None}),
            _vec_maker(PUSH_ID, PUSH_VECTOR_N, env_kwargs=on_log),
        ]
        out += [env_timed(row, make) for row, make in zip(rows, makers)]
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


def _fresh(script: str, *argv: object) -> dict:
    """The JSON a fresh interpreter running ``script`` prints last."""
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, argv)], capture_output=True, text=True, timeout=600, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def push_make_seconds(paths: dict[int, Path] | Exception) -> list[dict]:
    """Seconds ``gymnasium.make`` takes to build the first and a second ``push-v0`` on each log,
    in a fresh interpreter (the first reads and encodes the file, the second shares the arrays)."""
    out = []
    for n in PUSH_LOG_ROWS:
        entry = {"rows": n, "first": None, "second": None}
        try:
            if isinstance(paths, Exception):
                raise paths
            entry.update(_fresh(_MAKE_SCRIPT, PUSH_ID, paths[n]))
        except Exception as exc:  # noqa: BLE001 - one broken figure must not end the run
            entry["status"] = f"not measured: {type(exc).__name__}"
        out.append(entry)
    return out


def memory_of_copies(env_id: str, count: int = MEMORY_COUNT) -> dict:
    """Peak RSS (``VmHWM`` of a fresh interpreter, else ``ru_maxrss``) of 1 against ``count`` copies of
    ``env_id``: shared data shows as a small increment."""
    plan = [
        ("python + import gym_suite, no env", "none", 0),
        (f"1 {env_id} (gymnasium.make)", "gymnasium.make", 1),
        (f"{count:,} {env_id} (gymnasium.make)", "gymnasium.make", count),
        (f"{env_id} native vector env, N={count:,}", "native vector", count),
    ]
    runs, log_kib = [], None
    for what, how, n in plan:
        run = {"what": what, "interface": how, "num_envs": n}
        try:
            measured = _fresh(_MEMORY_SCRIPT, env_id, how, n)
            runs.append({**run, "peak_rss_mib": measured["peak_rss_kib"] / 1024})
            log_kib = measured.get("log_kib") or log_kib
        except (OSError, ValueError, IndexError, subprocess.SubprocessError) as exc:
            runs.append({**run, "peak_rss_mib": None, "status": f"not measured: {type(exc).__name__}"})
    one, many = runs[1]["peak_rss_mib"], runs[2]["peak_rss_mib"]
    per_env = None if one is None or many is None else (many - one) * 1024 / (count - 1)
    return {"env_id": env_id, "count": count, "runs": runs, "per_extra_env_kib": per_env, "log_kib": log_kib}


# Targets


def _find(rows, env_id, interface, num_envs=1, note=""):
    wanted = (env_id, interface, num_envs, note)
    return next((r for r in rows if (r.env_id, r.interface, r.num_envs, r.note) == wanted), None)


def _target(name, top, bottom, need, cost=False) -> dict:
    """``top / bottom`` of the median rates; with ``cost``, of the step costs (1 / rate) instead."""
    missing = [r for r in (top, bottom) if r is None or not r.ok]
    if missing:
        why = "; ".join("row absent" if r is None else r.status for r in missing)
        return {"target": name, "ratio": None, "need": need, "result": "not measured", "why": why}
    ratio = bottom.median / top.median if cost else top.median / bottom.median
    passed = ratio <= need if cost else ratio >= need
    return {"target": name, "ratio": ratio, "need": need, "result": "PASS" if passed else "MISS"}


def _heartpole_targets(rows: list[Row], made: Row | None) -> list[dict]:
    pypi = next((r for r in rows if r.interface == HEARTPOLE_PYPI), None)
    name = f"heartpole-v0 via gymnasium.make >= {HEARTPOLE_VS_PYPI:g}x heartpole 1.2"
    out = [_target(name, made, pypi, HEARTPOLE_VS_PYPI)]
    n, need = HEARTPOLE_NATIVE_VS_SYNC
    native, sync = _find(rows, "heartpole-v0", "native vector", n), _find(rows, "heartpole-v0", "SyncVectorEnv", n)
    out.append(_target(f"heartpole-v0 native N={n} >= {need:g}x SyncVectorEnv N={n}", native, sync, need))
    n, floor = HEARTPOLE_NATIVE_FLOOR
    native = _find(rows, "heartpole-v0", "native vector", n)
    name = f"heartpole-v0 native N={n:,} >= {floor / 1e6:g}M env-steps/s"
    if native is None or not native.ok:
        return out + [{"target": name, "ratio": None, "need": floor, "result": "not measured", "why": "row absent"}]
    ratio = native.median / floor
    return out + [{"target": name, "ratio": ratio, "need": 1.0, "result": "PASS" if ratio >= 1 else "MISS"}]


def targets(rows: list[Row], ids: list[str]) -> list[dict]:
    made = {env_id: _find(rows, env_id, "gymnasium.make") for env_id in ids}
    out = _heartpole_targets(rows, made["heartpole-v0"]) if "heartpole-v0" in ids else []
    cartpole = _find(rows, CARTPOLE, "gymnasium.make")
    for env_id, need in SCALAR_VS_CARTPOLE.items():
        if env_id in ids:
            name = f"{env_id} via gymnasium.make >= {need:g}x {CARTPOLE} via gymnasium.make"
            out.append(_target(name, made[env_id], cartpole, need))
    cartpole_vector, at = _find(rows, CARTPOLE, "native vector", TARGET_N), f"N={TARGET_N:,}"
    for env_id in ids:
        native = _find(rows, env_id, "native vector", TARGET_N)
        name = f"{env_id} native {at} >= {NATIVE_VS_CARTPOLE_VECTOR:g}x CartPoleVectorEnv {at}"
        out.append(_target(name, native, cartpole_vector, NATIVE_VS_CARTPOLE_VECTOR))
        name = f"{env_id} native {at} >= {NATIVE_VS_OWN_SCALAR:g}x {env_id} via gymnasium.make"
        out.append(_target(name, native, made[env_id], NATIVE_VS_OWN_SCALAR))
    if PUSH_ID in ids:
        small, big = (_find(rows, PUSH_ID, "gymnasium.make", 1, _log_note(n)) for n in PUSH_LOG_ROWS)
        name = f"{PUSH_ID} step cost with a {PUSH_LOG_ROWS[1]:,}-row log <= {PUSH_LOG_COST_RATIO:g}x "
        name += f"with a {PUSH_LOG_ROWS[0]:,}-row log"
        out.append(_target(name, big, small, PUSH_LOG_COST_RATIO, cost=True))
    return out


# Reporting


def _row_cells(row: Row) -> list[str]:
    cells = [row.env_id + (" (ref)" if row.reference else ""), row.interface + (f", {row.note}" if row.note else "")]
    if not row.ok:
        return cells + [f"{row.num_envs:,}", row.status, ""]
    return cells + [f"{row.num_envs:,}", f"{row.median:,.0f}", f"{min(row.rates):,.0f} - {max(row.rates):,.0f}"]


def targets_table(found: list[dict]) -> str:
    lines = [
        [t["target"], "-" if t["ratio"] is None else f"{t['ratio']:.2f}x", t["result"]]
        if t["result"] != "not measured"
        else [t["target"], "-", f"not measured ({t['why']})"]
        for t in found
    ]
    return markdown_table(["target (ratio of medians, same run)", "ratio", "result"], lines, right={1})


def memory_table(memory: dict) -> str:
    runs = memory["runs"]
    lines = [
        [m["what"], m.get("status", "-") if m["peak_rss_mib"] is None else f"{m['peak_rss_mib']:,.1f}"] for m in runs
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
        "cpu": cpu_name(), "cpu_family": cpu_family(), "cpu_count": os.cpu_count(), "platform": platform.platform(),
        "python": platform.python_version(), **versions, "load_average_at_start": _load(),
    }  # fmt: skip


def _load() -> list[float] | None:
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def render_text(result: dict, rows: list[Row]) -> str:
    m, s, pypi = result["machine"], result["settings"], result["heartpole_pypi_venv"]
    per = f"{s['steps']} env steps" if s["steps"] else f"~{s['seconds']:g} s"
    header = ["id", "interface", "N", "env-steps/s (median)", "min - max"]
    side = f"; heartpole {pypi['heartpole']} with numpy {pypi['numpy']}, gymnasium {pypi['gymnasium']}" if pypi else ""
    parts = [
        f"{m['cpu']}, {m['cpu_count']} cores, Python {m['python']}, gymnasium {m['gymnasium']}, numpy {m['numpy']}, "
        f"gym {m['gym'] or 'not installed'}" + side,
        f"Median of {s['repeats']} interleaved rounds of {per} per row, actions drawn in advance; "
        "vector rows count env steps (N x step calls).",
        "",
        markdown_table(header, [_row_cells(r) for r in rows], right={2, 3, 4}),
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


def merge_step_cost(kept: list[dict], new: list[dict]) -> list[dict]:
    """One entry per CPU family (model name and family numbers): a new one replaces a kept one."""
    out = {}
    for e in kept + new:
        out[e["machine"].get("cpu", ""), e["machine"].get("cpu_family", "")] = e
    return list(out.values())


def step_cost_table(entry: dict) -> str:
    """A CPU family's table: µs a step (fastest and median round), the speed against CartPole-v1 of
    the same interface (fastest rounds, and the median of the rounds' ratios: the rounds are paired)
    and the aim it is held to."""
    seconds = entry["seconds"]

    def cells(env_id, how, n, times, *rest):
        return [env_id, how, f"{int(n):,}", f"{min(times) * 1e6:,.2f}", f"{statistics.median(times) * 1e6:,.2f}", *rest]

    lines = []
    for key, times in seconds.items():
        env_id, how, n = key.split("|")
        if env_id == CARTPOLE:
            continue
        cartpole = seconds.get(f"{CARTPOLE}|{STEP_COST_REFERENCE.get(how, how)}|{n}")
        best = median = aim = "-"
        if cartpole:
            best = f"{min(cartpole) / min(times):.2f}x"
            median = f"{statistics.median(c / t for c, t in zip(cartpole, times)):.2f}x"
        need = STEP_COST_AIMS.get(how) if how == "make" or int(n) == TARGET_N else None
        if need is not None and cartpole:
            aim = f">= {need:g}x: " + ("PASS" if min(cartpole) / min(times) >= need else "MISS")
        lines.append(cells(env_id, how, n, times, best, median, aim))
    references = {tuple(k.split("|")[1:]) for k in seconds if k.startswith(CARTPOLE + "|")}
    for how, n in sorted(references, key=lambda hn: (hn[0], int(hn[1]))):
        lines.append(cells(f"{CARTPOLE} (ref)", how, n, seconds[f"{CARTPOLE}|{how}|{n}"], "1.00x", "1.00x", "-"))
    header = ["id", "interface", "N", "µs a step (fastest)", "µs (median)", "vs CartPole", "vs CartPole (median)"]
    header.append("aim")
    return markdown_table(header, lines, right={2, 3, 4, 5, 6})


def step_cost_sections(entries: list[dict]) -> str:
    parts = []
    for e in entries:
        m, s = e["machine"], e.get("settings") or {}
        jax = (
            "; `jax-vector`: the JAX vector env (`gym_suite_jax/<id>`) through Gymnasium's API, `jax-scan`: its "
            "compiled rollout (µs a batch step; both against CartPole-v1's native vector env)"
        )
        parts += [
            f"## Paired CPU time a step: {m.get('cpu', '?')} ({m.get('cpu_family') or 'family not recorded'})",
            "",
            f"Measured {e['date']} with `{e['command']}`: {s.get('rounds', '?')} rounds, each id's env and "
            "CartPole-v1's timed in the same process with `time.process_time`; Python "
            f"{m.get('python', '?')}, {m.get('versions', '?')}; load average {m.get('load_average_at_start', '?')} "
            f"at the start, {m.get('load_average_at_end', '?')} at the end. `make`: the scalar env through "
            "`gymnasium.make`; `native`: the native vector env (µs a `step` call of N envs)"
            + (jax if any("|jax-" in key for key in e["seconds"]) else "")
            + ". A speed above 1x is faster than CartPole-v1; an aim holds only where it holds on every CPU family.",
            "",
            step_cost_table(e),
            "",
        ]
    return "\n".join(parts + [page(PAGE, "aims-missed") + "\n"])


def render_markdown(result: dict, text: str, json_path: str | None = None) -> str:
    where = f"; the same figures, with every repeat, are in `{Path(json_path).name}`" if json_path else ""
    return (
        "# gym-suite bench\n\n"
        f"Measured {result['date']} with `{result['command']}` (took {result['wall_seconds']:.0f} s){where}.\n\n"
        + text
        + "\n\n"
        + (step_cost_sections(result["step_cost"]) + "\n" if result.get("step_cost") else "")
        + page(PAGE, "how")
        + "\n"
    )


# Entry point


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python gym-suite/benchmarks/bench.py",
        description="Steps per second of every gym-suite environment against reference envs, in one run.",
    )
    add = parser.add_argument
    add("--quick", action="store_true", help="a short run: 3 rounds of ~0.25 s per row")
    add("--ids", nargs="+", metavar="ID", help="suite ids to time (default: every registered id)")
    add("--repeats", type=int, help="timed rounds (default 5, --quick 3)")
    add("--seconds", type=float, help="length of one repeat of a row (default 1, --quick 0.25)")
    add("--steps", type=int, help="fixed env steps per repeat instead of --seconds")
    add("--env-kwargs", nargs="+", type=key_value, default=[], metavar="KEY=VALUE",
        help="arguments of the suite environments timed (not of the reference rows)")  # fmt: skip
    add("--json", metavar="PATH", help="also save every figure as JSON")
    add("--markdown", metavar="PATH", help="also save the tables as a markdown page")
    add("--from-json", metavar="PATH",
        help="time nothing: report the rows of an earlier run's JSON, with the targets worked out anew")  # fmt: skip
    add("--step-cost", nargs="+", default=[], metavar="PATH",
        help="add the JSON of step_cost.py --json: a table per CPU family (with --from-json: beside the kept ones)")  # fmt: skip
    add("--heartpole-venv", metavar="PATH",
        help="a virtual environment with heartpole==1.2 installed, for its reference row "
        f"(default: $HEARTPOLE12_VENV, else {DEFAULT_HEARTPOLE_VENV})")  # fmt: skip
    add("--create-heartpole-venv", action="store_true",
        help="make that virtual environment with pip from PyPI when it is missing")  # fmt: skip
    return parser


def time_rows(timed: list[Timed], args) -> None:
    """Calibrate every row, then time them in ``args.repeats`` interleaved rounds (a progress bar
    on a terminal counts the rows calibrated and timed; elsewhere a log line every few seconds)."""

    def attempt(t: Timed, action: Callable[[], None]) -> None:
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - one broken row must not end the run
            _error(t.row, exc)
            t.run = None

    def ready(t: Timed) -> None:
        if args.steps is None:
            t.row.steps = calibrate(t.run, args.seconds)
        else:
            t.row.steps = max(1, args.steps // t.row.num_envs)
            t.run(min(t.row.steps, 16))  # warm-up

    with Progress(len(timed) * (1 + args.repeats), desc="bench", unit="row") as progress:
        for t in timed:
            if t.run is not None:
                attempt(t, lambda t=t: ready(t))
            cells = "  ".join(_row_cells(t.row)[:3])
            progress.write(f"  ready  {cells}  " + (f"{t.row.steps:,} steps a repeat" if t.run else t.row.status))
            progress.update(1)
        for round_ in range(args.repeats):
            for t in timed:
                progress.update(1)
                if t.run is not None:
                    attempt(t, lambda t=t: t.row.seconds.append(t.run(t.row.steps)))
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


def measure(args, ids: list[str], env_kwargs: dict) -> dict:
    """Time every row, then push-v0's makes and memory: the result's figures."""
    found = {"push_make": None, "memory": None}
    with tempfile.TemporaryDirectory(prefix="gym-suite-bench-") as tmp:
        timed = reference_timed(args) + [t for env_id in ids for t in suite_timed(env_id, env_kwargs)]
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
            found["push_make"] = push_make_seconds(paths)
    gc.collect()
    if PUSH_ID in ids:
        print(f"  peak memory of {MEMORY_COUNT:,} {PUSH_ID} envs against one ...", file=sys.stderr, flush=True)
        found["memory"] = memory_of_copies(PUSH_ID)
    return {"rows": [t.row.as_dict() for t in timed], **found}


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
    if unknown := [i for i in ids if i not in known]:
        parser.error(f"unknown id(s) {unknown}; registered ids are {known}")
    args.repeats = args.repeats if args.repeats is not None else 3 if args.quick else 5
    args.seconds = args.seconds if args.seconds is not None else 0.25 if args.quick else 1.0
    if args.repeats < 1 or args.seconds <= 0 or (args.steps is not None and args.steps < 1):
        parser.error("--repeats, --seconds and --steps must be positive")
    env_kwargs = dict(args.env_kwargs)
    if args.create_heartpole_venv:
        ensure_heartpole_venv(heartpole_venv_path(args.heartpole_venv))
    args.side_versions = None
    started, machine = time.perf_counter(), machine_info()
    print(f"bench: {', '.join(ids)}; {args.repeats} rounds", file=sys.stderr, flush=True)
    found = measure(args, ids, env_kwargs)
    machine["load_average_at_end"] = _load()
    command = "python gym-suite/benchmarks/bench.py " + " ".join(argv if argv is not None else sys.argv[1:])
    settings = {"repeats": args.repeats, "seconds": args.seconds, "steps": args.steps, "quick": args.quick}
    settings |= {"seed": SEED, "action_pool": ACTION_POOL, "batch_pool": BATCH_POOL, "env_kwargs": env_kwargs}
    result = {
        "command": command.strip(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine,
        "heartpole_pypi_venv": args.side_versions,
        "settings": settings,
        "ids": ids,
        **found,
        "wall_seconds": time.perf_counter() - started,
    }
    return report(result, args)


if __name__ == "__main__":
    sys.exit(main())
