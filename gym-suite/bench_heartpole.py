"""Speed of ``heartpole-v0`` against the PyPI package ``heartpole==1.2``, in one run.

    python gym-suite/bench_heartpole.py [--side-venv /tmp/heartpole12-venv] [--rounds 5] [--seconds 1]

``heartpole==1.2`` (the tutorial author's release) pins ``numpy<2`` and ``gymnasium 0.29``, so it
runs in a virtual environment of its own, created at ``--side-venv`` with pip from PyPI when it
is missing, and is timed there by the same loop (the source of :func:`time_scalar` is sent to
it) with the same pre-drawn random actions. Its ``HeartPole`` never ends an episode and appends
every step to a text log that only ``render()`` clears (so each step copies the whole log): here
each episode lasts 1,000 steps, like heartpole-v0's, in a fresh ``HeartPole``, its best case.

Rows: heartpole 1.2; heartpole-v0 through ``gymnasium.make`` and as the bare class; Gymnasium's
``SyncVectorEnv`` of the scalar env at N=64; the native vector env at N=64 and N=4,096. Every row
is calibrated to last about ``--seconds``, then timed in ``--rounds`` interleaved rounds (one
repeat of every row per round, so a burst of load elsewhere hits all rows alike); a figure is
the median over the rounds, in (environment) steps per second of wall-clock time, and, beside
it, of the process's CPU time, which another process on the machine disturbs less. Vector rows
count environment steps (N x ``step`` calls).
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np

import gym_suite  # noqa: F401  (registers the ids)

ENV_ID = "gym_suite:heartpole-v0"
SEED = 0
ACTION_POOL = 4096  # scalar actions drawn in advance; the timed loop cycles through them
BATCH_POOL = 16  # vector action batches drawn in advance
EPISODE_STEPS = 1000
SYNC_N, SMALL_N, BIG_N = 64, 64, 4096

# Targets, within one run.
VS_PYPI = 5.0  # heartpole-v0 via gymnasium.make >= 5x heartpole 1.2
NATIVE_BIG_RATE = 5_000_000  # native vector env at N=4,096: env-steps/s
NATIVE_VS_SYNC = 20.0  # native vector env at N=64 >= 20x SyncVectorEnv of the scalar env at N=64


# The timing loops. time_scalar needs nothing but itertools and time: its source also runs in
# the heartpole 1.2 interpreter, so both sides are timed by the very same loop.


def time_scalar(step, reset, actions, steps):
    """(wall, CPU) seconds of ``steps`` calls of ``step`` cycling through ``actions``, resetting at episode end."""
    pool = itertools.islice(itertools.cycle(actions), steps)
    wall, cpu = time.perf_counter(), time.process_time()
    for action in pool:
        _, _, terminated, truncated, _ = step(action)
        if terminated or truncated:
            reset()
    return time.perf_counter() - wall, time.process_time() - cpu


def time_vector(step, batches, steps):
    """(wall, CPU) seconds of ``steps`` calls of a vector env's ``step`` cycling through ``batches``."""
    pool = itertools.islice(itertools.cycle(batches), steps)
    wall, cpu = time.perf_counter(), time.process_time()
    for actions in pool:
        step(actions)
    return time.perf_counter() - wall, time.process_time() - cpu


_SIDE_SCRIPT = """
import itertools, json, sys, time
from importlib.metadata import version
from heartpole import HeartPole
import numpy as np

{time_scalar}


class Episodes:
    # a fresh HeartPole per episode of `limit` steps: its log starts empty every episode
    def __init__(self, limit):
        self.limit = limit

    def reset(self):
        self.env, self.t = HeartPole(), 0
        self.inner_step = self.env.step
        return self.env.reset()

    def step(self, action):
        obs, reward, terminated, truncated, info = self.inner_step(action)
        self.t += 1
        return obs, reward, terminated, self.t >= self.limit, info


header = json.loads(sys.stdin.readline())
np.random.seed(header["seed"])  # heartpole 1.2 draws from numpy's global generator
env = Episodes(header["episode_steps"])
print(json.dumps({{name: version(name) for name in ("heartpole", "numpy", "gymnasium")}}), flush=True)
for line in sys.stdin:  # a number of steps per line; answers the seconds they took
    env.reset()
    print(json.dumps(time_scalar(env.step, env.reset, header["actions"], int(line))), flush=True)
"""


def ensure_side_venv(path: Path) -> Path:
    """The python of a venv holding heartpole==1.2, made (with pip, from PyPI) when missing."""
    python = path / "bin" / "python"
    probe = [str(python), "-c", "from importlib.metadata import version; print(version('heartpole'))"]
    if python.exists():
        found = subprocess.run(probe, capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.strip() == "1.2":
            return python
    print(f"creating {path} with heartpole==1.2 ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "heartpole==1.2"], check=True)
    return python


class Row:
    def __init__(self, name, num_envs, run, close=lambda: None):
        self.name, self.num_envs, self.run, self.close = name, num_envs, run, close
        self.steps = 0
        self.times: list[tuple[float, float]] = []

    def rate(self, which: int) -> float:
        """Median env-steps per second over the rounds: ``which`` 0 for wall-clock, 1 for CPU time."""
        return statistics.median(self.num_envs * self.steps / t[which] for t in self.times)

    def spread(self) -> str:
        rates = [self.num_envs * self.steps / t[0] for t in self.times]
        return f"{min(rates):,.0f} - {max(rates):,.0f}"


def pypi_row(python: Path, actions: list[int]) -> tuple[Row, dict]:
    side = subprocess.Popen(
        [str(python), "-c", _SIDE_SCRIPT.format(time_scalar=inspect.getsource(time_scalar))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    side.stdin.write(json.dumps({"seed": SEED, "episode_steps": EPISODE_STEPS, "actions": actions}) + "\n")
    side.stdin.flush()
    versions = json.loads(side.stdout.readline())

    def run(n):
        side.stdin.write(f"{n}\n")
        side.stdin.flush()
        return tuple(json.loads(side.stdout.readline()))

    def close():
        side.stdin.close()
        side.wait(timeout=60)

    return Row("heartpole 1.2 (PyPI), fresh HeartPole per 1,000-step episode", 1, run, close), versions


def scalar_row(name: str, env, actions: list[int]) -> Row:
    def run(n):
        env.reset(seed=SEED)
        return time_scalar(env.step, env.reset, actions, n)

    return Row(name, 1, run, env.close)


def vector_row(name: str, envs, rng) -> Row:
    batches = [rng.integers(0, 4, envs.num_envs) for _ in range(BATCH_POOL)]

    def run(n):
        envs.reset(seed=SEED)
        return time_vector(envs.step, batches, n)

    return Row(name, envs.num_envs, run, envs.close)


def calibrate(row: Row, seconds: float) -> int:
    """Steps that take about ``seconds`` (the trials warm the row up)."""
    n, elapsed = 16, row.run(16)[0]
    while elapsed < min(0.05, seconds / 4):
        n *= 8 if elapsed < 0.005 else 2
        elapsed = row.run(n)[0]
    elapsed = min(elapsed, row.run(n)[0])
    return max(4, round(n * seconds / max(elapsed, 1e-9)))


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    except OSError:
        return platform.machine()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--side-venv", type=Path, default=Path("/tmp/heartpole12-venv"),
                        help="venv with heartpole==1.2 (created when missing)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one repeat of a row")
    args = parser.parse_args(argv)

    python = ensure_side_venv(args.side_venv)
    actions = np.random.default_rng(SEED).integers(0, 4, ACTION_POOL).tolist()
    rng = np.random.default_rng(SEED)
    pypi, versions = pypi_row(python, actions)
    made = scalar_row("heartpole-v0 via gymnasium.make", gymnasium.make(ENV_ID), actions)
    raw = scalar_row("heartpole-v0, the bare class", gymnasium.make(ENV_ID).unwrapped, actions)
    sync = vector_row(f"SyncVectorEnv of heartpole-v0, N={SYNC_N}",
                      gymnasium.make_vec(ENV_ID, num_envs=SYNC_N, vectorization_mode="sync"), rng)
    small = vector_row(f"native vector env, N={SMALL_N}", gymnasium.make_vec(ENV_ID, num_envs=SMALL_N), rng)
    big = vector_row(f"native vector env, N={BIG_N:,}", gymnasium.make_vec(ENV_ID, num_envs=BIG_N), rng)
    rows = [pypi, made, raw, sync, small, big]

    load = os.getloadavg()
    for row in rows:
        row.steps = calibrate(row, args.seconds)
    for round_ in range(args.rounds):
        for row in rows:
            row.times.append(row.run(row.steps))
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    for row in rows:
        row.close()

    print(f"{cpu_name()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"gymnasium {gymnasium.__version__}, numpy {np.__version__}; side venv: heartpole {versions['heartpole']}, "
          f"numpy {versions['numpy']}, gymnasium {versions['gymnasium']}")
    print(f"load average {load[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end; median of {args.rounds} "
          f"interleaved rounds of ~{args.seconds:g} s per row, random actions drawn in advance (seed {SEED})\n")
    width = max(len(r.name) for r in rows)
    print(f"| {'row':<{width}} | env-steps/s (wall) |     min - max (wall) | env-steps/s (CPU) |")
    print(f"|{'-' * (width + 2)}|-------------------:|---------------------:|------------------:|")
    for r in rows:
        print(f"| {r.name:<{width}} | {r.rate(0):>18,.0f} | {r.spread():>20} | {r.rate(1):>17,.0f} |")

    checks = [  # (target, wall-clock figure, CPU-time figure, need)
        ("heartpole-v0 via gymnasium.make / heartpole 1.2",
         made.rate(0) / pypi.rate(0), made.rate(1) / pypi.rate(1), VS_PYPI),
        (f"native N={BIG_N:,}: million env-steps/s", big.rate(0) / 1e6, big.rate(1) / 1e6, NATIVE_BIG_RATE / 1e6),
        (f"native N={SMALL_N} / SyncVectorEnv N={SYNC_N}",
         small.rate(0) / sync.rate(0), small.rate(1) / sync.rate(1), NATIVE_VS_SYNC),
        (f"(other reading) native N={BIG_N:,} / SyncVectorEnv N={SYNC_N}",
         big.rate(0) / sync.rate(0), big.rate(1) / sync.rate(1), NATIVE_VS_SYNC),
    ]
    print("\n| target (same run) | wall | CPU | need | result (wall) |\n|---|---:|---:|---:|---|")
    for name, wall, cpu_figure, need in checks:
        print(f"| {name} | {wall:.2f} | {cpu_figure:.2f} | {need:g} | {'PASS' if wall >= need else 'MISS'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
