"""The ``gym-suite`` command (also ``python -m gym_suite``)."""

from __future__ import annotations

import argparse
import sys

import gymnasium
import numpy as np

from gym_suite import SPECS
from gym_suite.envs._base import action_seed


def _list(args) -> int:
    for spec in SPECS:
        env = gymnasium.make(spec.id)
        print(f"{spec.id}  (max_episode_steps={spec.max_episode_steps})")
        print(f"    {spec.summary}")
        print(f"    action space:      {env.action_space}")
        print(f"    observation space: {env.observation_space}")
        env.close()
    return 0


def demo_episode(env_id: str, seed: int) -> tuple[int, float, str]:
    """One seeded episode with random actions: ``(steps, return, how it ended)``."""
    env = gymnasium.make(env_id)
    env.reset(seed=seed)
    env.action_space.seed(action_seed(seed))
    steps, total = 0, 0.0
    while True:
        _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        steps += 1
        total += float(reward)
        if terminated or truncated:
            env.close()
            return steps, total, "terminated" if terminated else "truncated"


def _demo(args) -> int:
    rows = [(spec.id, *demo_episode(spec.id, args.seed)) for spec in SPECS]
    print(f"One episode of every gym-suite environment, random actions, seed {args.seed}:\n")
    print(f"| {'id':<14} | {'steps':>5} | {'return':>10} | ended      |")
    print(f"|{'-' * 16}|{'-' * 7}|{'-' * 12}|------------|")
    for env_id, steps, total, how in rows:
        print(f"| {env_id:<14} | {steps:>5} | {total:>10.3f} | {how:<10} |")
    return 0


def _histogram(values: np.ndarray, bins: int = 12, width: int = 40) -> str:
    counts, edges = np.histogram(values, bins=bins)
    top = max(1, counts.max())
    lines = []
    for count, lo, hi in zip(counts, edges[:-1], edges[1:]):
        bar = "#" * int(round(width * count / top))
        lines.append(f"{lo:>10.2f} .. {hi:<10.2f} {count:>6} {bar}")
    return "\n".join(lines)


def _evaluate(args) -> int:
    from gym_suite.evaluate import evaluate

    result = evaluate(args.id, args.policy, episodes=args.episodes, seed=args.seed, n_jobs=args.jobs)
    print(result)
    print(f"\nreturn: {result.mean:.3f} ± {result.std:.3f}\n")
    print(_histogram(result.returns))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gym-suite", description="gym-suite environments")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="every environment id with its spaces").set_defaults(func=_list)
    demo = sub.add_parser("demo", help="one seeded random episode of every environment")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_demo)
    ev = sub.add_parser("evaluate", help="seeded evaluation of a built-in policy")
    ev.add_argument("id", choices=[spec.id for spec in SPECS])
    ev.add_argument("--policy", default="random", choices=["random", "heuristic"])
    ev.add_argument("--episodes", type=int, default=1000)
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--jobs", type=int, default=1, help="parallel processes (-1: every core)")
    ev.set_defaults(func=_evaluate)
    for name, module, text in (
        ("baselines", "gym_suite.baselines", "random / heuristic / trained agents for every id"),
        ("bench", "gym_suite.bench", "steps per second of every id against reference envs"),
    ):
        sub.add_parser(name, help=text, add_help=False).set_defaults(func=_delegate(module))
    return parser


def _delegate(module: str):
    """Hand the rest of the command line to ``module.main`` (it parses its own options)."""

    def run(args) -> int:
        import importlib

        return importlib.import_module(module).main(args.rest)

    run.delegates = True
    return run


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if getattr(args.func, "delegates", False):
        args.rest = rest
    elif rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
