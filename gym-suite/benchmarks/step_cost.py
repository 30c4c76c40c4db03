"""CPU time per step of every id, this checkout against others (a commit's worktree each), paired.

    git worktree add /tmp/before <commit>
    python gym-suite/benchmarks/step_cost.py --against /tmp/before [--against /tmp/older ...] [--json out.json]

Each tree runs in a subprocess of its own, the trees alternating round by round; a round times the
scalar env through ``gymnasium.make`` and the native vector env at each ``--num-envs`` with
``time.process_time``, next to CartPole-v1. ``--jax`` adds the JAX vector env through Gymnasium's
API (``jax-vector``) and its compiled rollout (``jax-scan``). ``bench.py --step-cost`` puts the
``--json`` on the Bench page.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import inspect
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

from _machine import cpu_family, cpu_name, load_average, versions  # this folder's helpers (on sys.path)
from _tables import markdown_table
from bench import CARTPOLE, draw_actions, time_scalar, time_vector
from bench import STEP_COST_REFERENCE as REFERENCE  # CartPole-v1's interface a row is compared with

REPO = Path(__file__).resolve().parents[2]
INSTALL_JAX = 'pip install "gym-suite[jax]"'

TIMING = "\n\n".join(inspect.getsource(f) for f in (draw_actions, time_scalar, time_vector))
CHILD = r"""
import itertools, json, sys, time, warnings
import numpy as np
src, ids, sizes, steps = sys.argv[1], sys.argv[2].split(","), [int(n) for n in sys.argv[3].split(",")], int(sys.argv[4])
use_jax = sys.argv[5] == "1"
sys.path.insert(0, src)
warnings.simplefilter("ignore")
import gymnasium
import gym_suite
if not gym_suite.__file__.startswith(src):
    sys.exit(f"gym_suite was imported from {gym_suite.__file__}, not from {src}")
out = {}
# TIMING: bench.py's timing functions

def vector(key, name, n, wait=None, **kwargs):
    count = max(100, steps * 40 // n)
    venv = gymnasium.make_vec(name, num_envs=n, **kwargs)
    venv.reset(seed=0)
    venv.action_space.seed(0)
    batches = [venv.action_space.sample() for _ in range(16)]
    step = venv.step if wait is None else lambda actions: wait(venv.step(actions))  # a caller waits for results
    time_vector(step, batches, 10)  # (a JAX env's first step compiles it)
    out[key] = time_vector(step, batches, count, time.process_time) / count
    venv.close()
    return count


for env_id in ids:
    name = env_id if env_id == "CartPole-v1" else f"gym_suite:{env_id}"
    try:
        env = gymnasium.make(name)
    except gymnasium.error.Error:  # an id this checkout does not register
        continue
    env.reset(seed=0)
    actions = draw_actions(env.action_space, 4096, 0)  # a Discrete action as a Python int, as bench.py gives it
    out[f"{env_id}|make|1"] = time_scalar(env.step, env.reset, actions, steps, time.process_time) / steps
    env.close()
    for n in sizes:
        vector(f"{env_id}|native|{n}", name, n, vectorization_mode="vector_entry_point")
jax_ids = ()
if use_jax:
    import jax
    try:
        import gym_suite.jax
        jax_ids = gym_suite.jax.jax_ids()
    except (ImportError, AttributeError):  # a checkout from before the JAX envs
        pass
for env_id in (i for i in ids if i in jax_ids):
    for n in sizes:
        count = vector(f"{env_id}|jax-vector|{n}", f"gym_suite_jax/{env_id}", n, jax.block_until_ready)
        env, params = gym_suite.jax.make(env_id)
        sample = env.action_space(params).sample

        def rollout(state, key, env=env, params=params, sample=sample, n=n, count=count):
            def step(state, key):
                action_key, step_key = jax.random.split(key)
                actions = jax.vmap(sample)(jax.random.split(action_key, n))
                _, state, reward, _, _, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                    jax.random.split(step_key, n), state, actions, params
                )
                return state, reward.sum()

            state, rewards = jax.lax.scan(step, state, jax.random.split(key, count))
            return state, rewards.sum()

        _, state = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(0), n), params)
        compiled = jax.jit(rollout).lower(state, jax.random.key(1)).compile()
        jax.block_until_ready(compiled(state, jax.random.key(1)))
        start = time.process_time()
        jax.block_until_ready(compiled(state, jax.random.key(2)))
        out[f"{env_id}|jax-scan|{n}"] = (time.process_time() - start) / count
print(json.dumps(out))
""".replace("# TIMING: bench.py's timing functions\n", TIMING)


def _round(src: Path, ids: list[str], sizes: list[int], steps: int, use_jax: bool = False) -> dict[str, float]:
    argv = [str(src), ",".join(ids), ",".join(map(str, sizes)), str(steps), str(int(use_jax))]
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"timing {src} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python gym-suite/benchmarks/step_cost.py",
        description="CPU time per step of every id, this checkout against others (paired, interleaved rounds).",
    )
    add = parser.add_argument
    add("--against", type=Path, action="append", default=[],
        help="another checkout (a git worktree); repeat for several; without it, this one alone")  # fmt: skip
    add("--ids", default="example-v0,push-v0,heartpole-v0,heartpole-v1,target-v0", help="comma-separated ids")
    add("--num-envs", default="64,4096", help="native vector sizes, comma-separated")
    add("--rounds", type=int, default=5, help="rounds per checkout (the fastest counts)")
    add("--steps", type=int, default=20_000, help="scalar steps a round (vector: 40x as many env-steps)")
    add("--jax", action="store_true",
        help="also time the JAX vector env through Gymnasium's API (jax-vector) and its compiled rollout "
        "(jax-scan) at each --num-envs, against CartPoleVectorEnv (needs the jax extra)")  # fmt: skip
    add("--json", metavar="PATH", help="also save the machine, the settings and every round's time as JSON")
    return parser


def _arguments(argv: list[str] | None) -> tuple[argparse.Namespace, list[int]]:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        parser.error("--rounds and --steps must be positive")
    try:
        sizes = [int(n) for n in args.num_envs.split(",") if n]
    except ValueError:
        parser.error(f"--num-envs must be integers separated by commas, got {args.num_envs!r}")
    if any(n < 1 for n in sizes):
        parser.error("--num-envs must be positive")
    for other in args.against:
        if not (other / "gym_suite" / "__init__.py").is_file():
            parser.error(f"--against {other}: no gym_suite package there")
    if args.jax and importlib.util.find_spec("jax") is None:
        print(f"--jax: JAX is not installed ({INSTALL_JAX}); the jax-vector and jax-scan rows are left out", file=sys.stderr)  # fmt: skip
        args.jax = False
    return args, sizes


def main(argv: list[str] | None = None) -> int:
    args, sizes = _arguments(argv)
    ids = [i for i in args.ids.split(",") if i] + [CARTPOLE]
    trees = [REPO] + [other.resolve() for other in args.against]
    command = ("python gym-suite/benchmarks/step_cost.py " + " ".join(argv if argv is not None else sys.argv[1:])).strip()  # fmt: skip
    machine = {"cpu": cpu_name(), "cpu_family": cpu_family(), "python": platform.python_version(),
               "versions": versions(("numpy", "gymnasium")), "load_average_at_start": load_average()}  # fmt: skip
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    times: list[dict[str, list[float]]] = [{} for _ in trees]
    failed, rounds = None, 0
    for r in range(args.rounds):
        try:
            found = [_round(tree, ids, sizes, args.steps, args.jax) for tree in trees]
        except SystemExit as exc:  # the rounds done so far are still reported
            failed = str(exc)
            break
        for t, done in enumerate(found):
            for key, seconds in done.items():
                times[t].setdefault(key, []).append(seconds)
        rounds += 1
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    if not rounds:
        raise SystemExit(failed)
    machine["load_average_at_end"] = load_average()
    best = [{key: min(seconds) for key, seconds in found.items()} for found in times]
    print(
        f"{machine['cpu']} ({machine['cpu_family'] or 'family unknown'}), Python {machine['python']}, "
        f"{machine['versions']}; {date}; load {machine['load_average_at_start']} -> {machine['load_average_at_end']}"
    )
    print(f"`{command}`: the fastest of {rounds} rounds (CPU time)")
    print(_table(trees, best, times[0]))
    if len(trees) > 1:
        print("speed ratio: the other checkout's time over this one's (above 1: this one is faster)")
    print(
        "vs CartPole: CartPole-v1's time over the id's, same checkout and interface (jax-vector and jax-scan: "
        "CartPole-v1's native vector env of the same N), same rounds; nan: not in that checkout"
    )
    if args.json:
        settings = {"rounds": rounds, "steps": args.steps, "num_envs": sizes}
        result = {"command": command, "date": date, "machine": machine, "settings": settings | {"jax": args.jax}}
        result |= {"trees": [str(tree) for tree in trees], "seconds": times}
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    if failed is not None:
        print(f"stopped after {rounds} of {args.rounds} rounds: {failed}", file=sys.stderr)
        return 1
    return 0


def _table(trees: list[Path], best: list[dict[str, float]], these: dict[str, list[float]]) -> str:
    """The Markdown table: µs a step of each checkout (the fastest round; for this checkout also the
    median of its rounds), the ratios to this one, and to CartPole."""
    names = ["this"] + [str(tree) if tree not in trees[:t] else f"{tree} #{t}" for t, tree in enumerate(trees)][1:]
    header = ["id", "interface", "N", "this (µs)", "this median (µs)"]
    for name in names[1:]:
        header += [f"{name} (µs)", f"speed vs {Path(name).name}"]
    rows = []
    for key, seconds in best[0].items():
        env_id, how, n = key.split("|")
        row = [env_id, how, n, f"{seconds * 1e6:.2f}", f"{statistics.median(these[key]) * 1e6:.2f}"]
        for other in best[1:]:
            row += ["nan", "nan"] if key not in other else [f"{other[key] * 1e6:.2f}", f"{other[key] / seconds:.2f}"]
        cartpole = best[0].get(f"{CARTPOLE}|{REFERENCE.get(how, how)}|{n}")
        rows.append(row + [f"{cartpole / seconds:.2f}" if cartpole else "nan"])
    return markdown_table(header + ["vs CartPole"], rows, right=set(range(2, len(header) + 1)))


if __name__ == "__main__":
    raise SystemExit(main())
