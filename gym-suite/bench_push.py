"""Speed of ``push-v0``: step cost on a 1,000-row and a 100,000-row log, scalar and vector.

    python gym-suite/bench_push.py [--steps 200000] [--num-envs 1024]

Both logs are written to a temporary directory by ``make_notifications.py --rows``. For each it
prints the time to build the first environment (pandas reads and encodes the file) and a
second one (the encoded arrays are shared; pandas is imported beforehand), then the best of
``--repeat`` measurements of steps per second of the scalar env made with
``gymnasium.make`` (random actions drawn beforehand, windows of 100 and the whole log as one
episode) and of the native vector env (environment steps per second). CartPole-v1, stepped by
the same loop in the same run, is the reference.
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from pathlib import Path

import gymnasium
import numpy as np
import pandas  # noqa: F401  (imported up front: the first make then times reading, not importing)

import gym_suite  # noqa: F401  (registers the ids)

HERE = Path(__file__).resolve().parent


def load_generator():
    spec = importlib.util.spec_from_file_location("make_notifications", HERE / "make_notifications.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scalar_rate(env, steps: int) -> float:
    actions = np.random.default_rng(0).integers(2, size=steps).tolist()
    env.reset(seed=0)
    start = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def vector_rate(envs, batches: int) -> float:
    rng = np.random.default_rng(0)
    actions = [rng.integers(2, size=envs.num_envs) for _ in range(batches)]
    envs.reset(seed=0)
    start = time.perf_counter()
    for batch in actions:
        envs.step(batch)
    return batches * envs.num_envs / (time.perf_counter() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200_000, help="scalar steps per measurement")
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--batches", type=int, default=500, help="vector steps per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per figure (the best is shown)")
    args = parser.parse_args(argv)

    def best(measure, *arguments):
        return max(measure(*arguments) for _ in range(args.repeat))

    generator = load_generator()
    cartpole = best(scalar_rate, gymnasium.make("CartPole-v1"), args.steps)
    print(f"reference: CartPole-v1 via gymnasium.make: {cartpole:,.0f} steps/s\n")
    print("| log rows | first make | second make | scalar, windows of 100 | scalar, whole log "
          f"| vector N={args.num_envs} |")
    print("|---------:|-----------:|------------:|-----------------------:|------------------:|------------:|")
    with tempfile.TemporaryDirectory() as tmp:
        for rows in (1_000, 100_000):
            path = Path(tmp) / f"log_{rows}.csv"
            generator.write(generator.generate_rows(rows), path)
            start = time.perf_counter()
            env = gymnasium.make("gym_suite:push-v0", csv_path=path)
            first = time.perf_counter() - start
            start = time.perf_counter()
            gymnasium.make("gym_suite:push-v0", csv_path=path)
            second = time.perf_counter() - start
            windows = best(scalar_rate, env, args.steps)
            whole_log = gymnasium.make("gym_suite:push-v0", csv_path=path, episode_length=None)
            whole = best(scalar_rate, whole_log, args.steps)
            envs = gymnasium.make_vec("gym_suite:push-v0", num_envs=args.num_envs, csv_path=path)
            vector = best(vector_rate, envs, args.batches)
            print(
                f"| {rows:>8,} | {first * 1e3:>7.1f} ms | {second * 1e3:>8.2f} ms | {windows:>14,.0f} steps/s "
                f"| {whole:>9,.0f} steps/s | {vector / 1e6:>6.2f} M/s |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
