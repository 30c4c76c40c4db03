"""CPU time per step of every id, this checkout against others (a commit's worktree each), paired.

    git worktree add /tmp/before <commit>
    python gym-suite/benchmarks/step_cost.py --against /tmp/before [--against /tmp/older ...] [--json out.json]

Each source tree (this one and every ``--against``) runs in a subprocess of its own (its ``gym_suite`` first on ``sys.path``), the
two alternating round by round so that a change of load touches both; a round times the scalar
env through ``gymnasium.make`` and the native vector env at each ``--num-envs``, with
``time.process_time`` (CPU time of the process: less sensitive to other jobs than wall time), and
the table gives the fastest round of each. The scalar env gets a ``Discrete`` action as a Python
int, as ``bench.py`` gives it (``--numpy-actions``: the numpy integer ``action_space.sample()``
returns, which takes another path through the checks). Gymnasium's CartPole-v1 (``make`` and its
``CartPoleVectorEnv``) is timed in every round too: its two columns should agree, else the
machine changed under the run. ``bench.py`` gives the steps per second of one checkout with its
targets; this script answers "faster or slower than that commit". It prints the processor
(model name and family), the date, the load and the versions of numpy and gymnasium with the
table; ``--json`` also saves them with every round's time (``bench.py --step-cost`` puts such a
file on the Bench page as the table of its CPU family). It needs gymnasium and numpy alone.

``--jax`` adds two rows per id and ``--num-envs`` size, on XLA (the ``jax`` extra; without JAX
installed the script says so and runs without them; a checkout without ``gym_suite.jax`` has none): ``jax-vector``,
``gymnasium.make_vec("gym_suite_jax/<id>", num_envs=N)`` stepped through the Gymnasium API as the
native one is (numpy action batches in, the step's JAX arrays waited for), and ``jax-scan``, the
batch's step compiled with the actions drawn on the device (``gym_suite.jax.make``'s env under
``vmap``, ``lax.scan`` over the round's steps in one ``jax.jit`` call): the rollout speed, no Python
a step. Both are CPU time of the process, XLA's threads included. Their "vs CartPole" is against
CartPole-v1's native vector env of the same N (Gymnasium's ``CartPoleVectorEnv``: the target).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

from _machine import cpu_family, cpu_name, load_average, versions  # this folder's helpers (on sys.path)
from _tables import markdown_table

REPO = Path(__file__).resolve().parents[2]
CARTPOLE = "CartPole-v1"
#: the interface of CartPole-v1 a row is compared with, where it is not the row's own (CartPole-v1
#: has no gym_suite_jax env: the JAX rows are held to the target, CartPoleVectorEnv)
REFERENCE = {"jax-vector": "native", "jax-scan": "native"}
INSTALL_JAX = 'pip install "gym-suite[jax]"'

CHILD = r"""
import json, sys, time, warnings
src, ids, sizes, steps = sys.argv[1], sys.argv[2].split(","), [int(n) for n in sys.argv[3].split(",")], int(sys.argv[4])
numpy_actions = sys.argv[5] == "1"
use_jax = sys.argv[6] == "1"
sys.path.insert(0, src)
warnings.simplefilter("ignore")
import gymnasium
import gym_suite
if not gym_suite.__file__.startswith(src):
    sys.exit(f"gym_suite was imported from {gym_suite.__file__}, not from {src}")
out = {}
for env_id in ids:
    name = env_id if env_id == "CartPole-v1" else f"gym_suite:{env_id}"
    try:
        env = gymnasium.make(name)
    except gymnasium.error.Error:  # an id this checkout does not register
        continue
    env.reset(seed=0)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(4096)]
    if isinstance(env.action_space, gymnasium.spaces.Discrete) and not numpy_actions:
        actions = [int(a) for a in actions]
    start = time.process_time()
    for i in range(steps):
        _, _, terminated, truncated, _ = env.step(actions[i & 4095])
        if terminated or truncated:
            env.reset()
    out[f"{env_id}|make|1"] = (time.process_time() - start) / steps
    env.close()
    for n in sizes:
        venv = gymnasium.make_vec(name, num_envs=n, vectorization_mode="vector_entry_point")
        venv.reset(seed=0)
        venv.action_space.seed(0)
        batches = [venv.action_space.sample() for _ in range(16)]
        count = max(100, steps * 40 // n)
        for i in range(10):
            venv.step(batches[i & 15])
        start = time.process_time()
        for i in range(count):
            venv.step(batches[i & 15])
        out[f"{env_id}|native|{n}"] = (time.process_time() - start) / count
        venv.close()
jax_ids = ()
if use_jax:
    import jax
    try:
        import gym_suite.jax
        jax_ids = gym_suite.jax.jax_ids()
    except (ImportError, AttributeError):  # a checkout from before the JAX envs
        pass
    for env_id in ids:
        if env_id not in jax_ids:
            continue
        for n in sizes:
            count = max(100, steps * 40 // n)
            venv = gymnasium.make_vec(f"gym_suite_jax/{env_id}", num_envs=n)
            venv.reset(seed=0)
            venv.action_space.seed(0)
            batches = [venv.action_space.sample() for _ in range(16)]
            for i in range(10):  # (the first compiles the step)
                jax.block_until_ready(venv.step(batches[i & 15]))
            start = time.process_time()
            for i in range(count):
                jax.block_until_ready(venv.step(batches[i & 15]))  # a caller waits for the step's results
            out[f"{env_id}|jax-vector|{n}"] = (time.process_time() - start) / count
            venv.close()
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
"""


def _round(
    src: Path, ids: list[str], sizes: list[int], steps: int, numpy_actions: bool, use_jax: bool = False
) -> dict[str, float]:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(src),
            ",".join(ids),
            ",".join(map(str, sizes)),
            str(steps),
            "1" if numpy_actions else "0",
            "1" if use_jax else "0",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"timing {src} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python gym-suite/benchmarks/step_cost.py",
        description="CPU time per step of every id, this checkout against others (paired, interleaved rounds).",
    )
    parser.add_argument(
        "--against",
        type=Path,
        action="append",
        default=[],
        help="another checkout (a git worktree); repeat for several; without it, this one alone",
    )
    parser.add_argument(
        "--ids", default="example-v0,push-v0,heartpole-v0,heartpole-v1,target-v0", help="comma-separated ids"
    )
    parser.add_argument("--num-envs", default="64,4096", help="native vector sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per checkout (the fastest counts)")
    parser.add_argument(
        "--steps", type=int, default=20_000, help="scalar steps a round (vector: 40x as many env-steps)"
    )
    parser.add_argument(
        "--numpy-actions",
        action="store_true",
        help="give the scalar env the numpy integers action_space.sample() returns (default: Python ints, as bench.py)",
    )
    parser.add_argument(
        "--jax",
        action="store_true",
        help="also time the JAX vector env through Gymnasium's API (jax-vector) and its compiled rollout "
        "(jax-scan) at each --num-envs, against CartPoleVectorEnv (needs the jax extra)",
    )
    parser.add_argument(
        "--json", metavar="PATH", help="also save the machine, the settings and every round's time as JSON"
    )
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
        print(
            f"--jax: JAX is not installed ({INSTALL_JAX}); the jax-vector and jax-scan rows are left out",
            file=sys.stderr,
        )
        args.jax = False
    ids = [i for i in args.ids.split(",") if i] + [CARTPOLE]
    trees = [REPO] + [other.resolve() for other in args.against]
    command = "python gym-suite/benchmarks/step_cost.py " + " ".join(argv if argv is not None else sys.argv[1:])
    machine = {
        "cpu": cpu_name(),
        "cpu_family": cpu_family(),
        "python": platform.python_version(),
        "versions": versions(("numpy", "gymnasium")),
        "load_average_at_start": load_average(),
    }
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    times: list[dict[str, list[float]]] = [{} for _ in trees]
    failed = None
    rounds = 0
    for r in range(args.rounds):
        try:
            found = [_round(tree, ids, sizes, args.steps, args.numpy_actions, args.jax) for tree in trees]
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
    print(f"`{command.strip()}`: the fastest of {rounds} rounds (CPU time)")
    print(_table(trees, best, times[0]))
    if len(trees) > 1:
        print("speed ratio: the other checkout's time over this one's (above 1: this one is faster)")
    print(
        "vs CartPole: CartPole-v1's time over the id's, same checkout and interface (jax-vector and jax-scan: "
        "CartPole-v1's native vector env of the same N), same rounds; nan: not in that checkout"
    )
    if args.json:
        result = {
            "command": command.strip(),
            "date": date,
            "machine": machine,
            "settings": {
                "rounds": rounds,
                "steps": args.steps,
                "num_envs": sizes,
                "numpy_actions": args.numpy_actions,
                "jax": args.jax,
            },
            "trees": [str(tree) for tree in trees],
            "seconds": times,
        }
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    if failed is not None:
        print(f"stopped after {rounds} of {args.rounds} rounds: {failed}", file=sys.stderr)
        return 1
    return 0


def _table(trees: list[Path], best: list[dict[str, float]], these: dict[str, list[float]] | None = None) -> str:
    """The Markdown table: µs a step of each checkout (the fastest round; with ``these``, the rounds
    of this checkout, also their median), the ratios to this one, and to CartPole."""
    names = ["this"] + [str(tree) if tree not in trees[:t] else f"{tree} #{t}" for t, tree in enumerate(trees)][1:]
    header = ["id", "interface", "N", f"{names[0]} (µs)"]
    if these is not None:
        header.append(f"{names[0]} median (µs)")
    for name in names[1:]:
        header += [f"{name} (µs)", f"speed vs {Path(name).name}"]
    header.append("vs CartPole")
    rows = []
    for key in best[0]:
        env_id, how, n = key.split("|")
        row: list[object] = [env_id, how, n, f"{best[0][key] * 1e6:.2f}"]
        if these is not None:
            row.append(f"{statistics.median(these[key]) * 1e6:.2f}")
        for t in range(1, len(trees)):
            seconds = best[t].get(key)
            row += ["nan", "nan"] if seconds is None else [f"{seconds * 1e6:.2f}", f"{seconds / best[0][key]:.2f}"]
        cartpole = best[0].get(f"{CARTPOLE}|{REFERENCE.get(how, how)}|{n}")
        row.append(f"{cartpole / best[0][key]:.2f}" if cartpole else "nan")
        rows.append(row)
    return markdown_table(header, rows, right=set(range(2, len(header))))


if __name__ == "__main__":
    raise SystemExit(main())
