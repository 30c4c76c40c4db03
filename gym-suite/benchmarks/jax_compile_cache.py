"""``train_ppo`` in a new process, compiling afresh against loading from JAX's persistent compilation cache.

    OMP_NUM_THREADS=1 python gym-suite/benchmarks/jax_compile_cache.py heartpole-v1 --rounds 3
    OMP_NUM_THREADS=1 python gym-suite/benchmarks/jax_compile_cache.py heartpole-v1 --against /tmp/old

A round runs ``train_ppo`` in two new processes on an empty cache of each tree: the first compiles,
the second loads; each reports its imports, tracing, lowering, XLA compiling, training and the
programs loaded from the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _machine import load_average  # this folder's helpers (the script's folder is on sys.path)

REPO = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, sys, time, warnings
start, cpu_start = time.perf_counter(), time.process_time()
src, env_id, timesteps, overrides = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
sys.path.insert(0, src)
warnings.simplefilter("ignore")
parts = {}


def timed(name, action):
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    parts[name] = [time.perf_counter() - wall, time.process_time() - cpu]


def imports(*names):
    return lambda: [__import__(name) for name in names]


# each import what it adds to the ones before it: gymnax imports all its environments, pong and
# catch among them, which import seaborn (and so scipy.stats) and matplotlib.pyplot to draw
timed("import jax", imports("jax", "jax.numpy"))
import jax, jax.monitoring
hits, spans = [], []
jax.monitoring.register_event_listener(lambda event, **kw: hits.append(event) if event.endswith("/cache_hits") else None)
jax.monitoring.register_event_time_span_listener(lambda event, t0, t1, **kw: spans.append((event, t0, t1)))
timed("import seaborn, matplotlib.pyplot (for gymnax)", imports("seaborn", "matplotlib.pyplot"))
timed("import gymnax (the rest)", imports("gymnax"))
timed("import rejax", imports("rejax"))
timed("import gym_suite.jax", imports("gym_suite.jax"))
timed("import gym_suite.training.jax", imports("gym_suite.training.jax"))
import gym_suite.training.jax as training
if not training.__file__.startswith(src):
    sys.exit(f"gym_suite was imported from {training.__file__}, not from {src}")
imported = time.perf_counter() - start
result = None


def train():
    global result
    spans.clear()
    result = training.train_ppo(
        env_id, seed=0, progress=False, total_timesteps=int(timesteps) if timesteps != "-" else None, **overrides
    )


timed("train_ppo", train)


def union(event):
    # seconds covered by the spans of an event (a trace nests the traces of the jitted functions it calls)
    total, end = 0.0, float("-inf")
    for _, t0, t1 in sorted(s for s in spans if s[0] == event):
        if t1 > end:
            total += t1 - max(t0, end)
            end = t1
    return total


events = {
    "tracing": "/jax/core/compile/jaxpr_trace_duration",
    "lowering to MLIR": "/jax/core/compile/jaxpr_to_mlir_module_duration",
    "XLA compiling (or loading from the cache)": "/jax/core/compile/backend_compile_duration",
}
print(json.dumps({
    "import": imported, "compile": result.compile_seconds, "train": result.train_seconds, "hits": len(hits),
    "steps": result.timesteps, "final": float(result.returns[0, -1]),
    "cache_dir": jax.config.jax_compilation_cache_dir,
    "parts": parts, "compile_parts": {name: union(event) for name, event in events.items()},
    "cpu": time.process_time() - cpu_start,
}))
"""


def _child(src: Path, args: argparse.Namespace, cache: str) -> dict:
    env = {**os.environ, "GYM_SUITE_JAX_CACHE": cache, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    timesteps = "-" if args.timesteps is None else str(args.timesteps)
    overrides = {"num_seeds": args.num_seeds} | ({"eval_points": args.eval_points} if args.eval_points else {})
    start = time.perf_counter()
    argv = [sys.executable, "-c", CHILD, str(src), args.id, timesteps, json.dumps(overrides)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{src}: {done.stderr[-3000:]}")
    row: dict = json.loads(done.stdout.strip().splitlines()[-1])
    row["process"] = wall
    return row


def _median(group: list[dict], get) -> float:
    return statistics.median(get(r) for r in group)


def _summary(rows: list[dict], trees: list[str]) -> None:
    """The medians of each tree's first and second processes, then where their time goes."""
    print("| tree | process | compile (s), median [min, max] | from the cache | train (s) | whole process (s) |")
    print("|---|---|---:|---:|---:|---:|")
    runs = {(t, w): [r for r in rows if r["tree"] == t and r["run"] == w] for t in trees for w in ("first", "second")}
    for (name, which), group in runs.items():
        compile_ = [r["compile"] for r in group]
        print(
            f"| {name} | {which} | {statistics.median(compile_):.2f} [{min(compile_):.2f}, {max(compile_):.2f}] | "
            f"{_median(group, lambda r: r['hits']):.0f} | {_median(group, lambda r: r['train']):.2f} | "
            f"{_median(group, lambda r: r['process']):.1f} |"
        )
    print()
    print("Where a process's time goes (seconds, median of the rounds: wall clock, and CPU time in brackets;")
    print("an import counts what it adds to the ones above it; the compile parts are within train_ppo's compile):")
    print()
    for name in trees:
        groups = [runs[name, "first"], runs[name, "second"]]

        def line(label: str, *gets, groups=groups) -> None:
            cells = [[f"{_median(g, get):.2f}" for get in gets] for g in groups]  # wall clock [CPU time]
            print(f"| {label} | {' | '.join(c[0] + ''.join(f' [{x}]' for x in c[1:]) for c in cells)} |")

        print(f"| {name}: part | first process | second process |")
        print("|---|---:|---:|")
        for part in groups[0][0]["parts"]:
            line(part, lambda r, p=part: r["parts"][p][0], lambda r, p=part: r["parts"][p][1])
            if part == "train_ppo":
                line("- compile_seconds", lambda r: r["compile"])
                for key in groups[0][0]["compile_parts"]:
                    line(f"- {key}", lambda r, k=key: r["compile_parts"][k])
                line("- training (train_seconds)", lambda r: r["train"])
        line("whole process", lambda r: r["process"], lambda r: r["cpu"])
        print()
    for name in trees:
        shares = ", ".join(
            f"{b['compile'] / a['compile']:.2f}" for a, b in zip(runs[name, "first"], runs[name, "second"])
        )
        print(f"\n{name}: second process's compile time / first's, round by round: {shares}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("id", help="the env id (its JAX PPO recipe)")
    add("--timesteps", type=int, default=None, help="env steps (default: the recipe's budget)")
    add("--rounds", type=int, default=3, help="rounds of (first process, second process)")
    add("--num-seeds", type=int, default=1, help="seeds trained in the one compiled run (train_ppo's)")
    add("--eval-points", type=int, default=None, help="points of the curve (default: the recipe's)")
    add("--against", type=Path, default=None, help="another checkout (a directory holding gym_suite/)")
    add("--json", default=None, help="write every row to this file")
    args = parser.parse_args(argv)
    if args.against is not None and not (args.against / "gym_suite").is_dir():
        parser.error(f"--against: {args.against} holds no gym_suite/ directory")
    trees = [("this", REPO)] + ([("against", args.against.resolve())] if args.against is not None else [])
    rows = []
    load_start, started = load_average(), time.perf_counter()
    for round_ in range(args.rounds):
        for name, src in trees if round_ % 2 == 0 else trees[::-1]:
            with tempfile.TemporaryDirectory(prefix="gym_suite_jax_cache_") as cache:
                for which in ("first", "second"):
                    row = _child(src, args, cache)
                    row.update(tree=name, round=round_, run=which, entries=len(os.listdir(cache)))
                    rows.append(row)
                    print(
                        f"round {round_} {name:7s} {which:6s}: process {row['process']:6.1f} s, import "
                        f"{row['import']:5.1f} s, compile {row['compile']:6.2f} s ({row['hits']} from the cache), "
                        f"train {row['train']:6.2f} s, final return {row['final']:.2f}",
                        flush=True,
                    )
    load_end = load_average()
    print(
        f"\n{args.id}, {rows[0]['steps']:,} steps, seed 0; {args.rounds} rounds; load average {load_start} at the start,"
    )
    print(
        f"{load_end} at the end ({(time.perf_counter() - started) / 60:.1f} min); Python {platform.python_version()}\n"
    )
    _summary(rows, [name for name, _ in trees])
    if args.json:
        Path(args.json).write_text(json.dumps({"id": args.id, "load": [load_start, load_end], "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
