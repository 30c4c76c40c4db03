"""example-v1's agents paired on the same evaluation episodes: what memory is worth.

    python gym-suite/analyses/example_v1_memory.py                       # the table's episodes 0 .. 999
    python gym-suite/analyses/example_v1_memory.py --recurrent-seeds 0-1 --jax-seeds 0-3 --jobs 2

Plays, on the same seeded episodes (episode *i* reset with seed ``--seed + i``, as the baselines
table does): random; every memoryless policy a greedy agent can be (the 32 maps from the 5
observations to the 2 actions, the heuristic among them); the optimum (dynamic programming over
beliefs); JAX PPO (memoryless: an MLP on the current observation) and SB3-contrib's RecurrentPPO
(an LSTM: memory), each trained with the id's recipe and the table's training seeds, as
``gym-suite/benchmarks/baselines.py`` trains them (the same calls: their mean returns are the runs
file's). Prints each one's mean return and standard error, its normalized score, and the paired
differences (mean and standard error over the same episodes) that the benchmark's criteria are
about: every RecurrentPPO seed against the heuristic, the best memoryless map on these episodes and
every JAX PPO seed.

Needs the ``sb3`` and ``jax`` extras. Training takes a few minutes a seed on one core.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys

from joblib import Parallel, delayed

import gym_suite
from gym_suite.envs.example_env import OBSERVATION_NAMES
from gym_suite.evaluate import EvalResult
from gym_suite.references.example_v1_optimum import HEURISTIC_MAP, optimal_policy

ENV_ID = "example-v1"


class Map:
    """A memoryless deterministic policy: the action of each observation."""

    def __init__(self, actions: tuple[int, ...]):
        self.actions = actions
        self.name = "map " + "".join(map(str, actions))

    def __call__(self, observation: int) -> int:
        return self.actions[int(observation)]


def seeds_arg(text: str) -> list[int]:
    """``0-4`` or ``1,3``: training seeds."""
    if not text:
        return []
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds.extend(range(int(first), int(last or first) + 1))
    return seeds


def train_recurrent_and_play(seed: int, episodes: int, first_episode: int) -> EvalResult:
    from gym_suite.training.sb3_recurrent import RecurrentPolicy, train_recurrent_ppo

    model = train_recurrent_ppo(ENV_ID, seed=seed)
    return gym_suite.evaluate(ENV_ID, RecurrentPolicy(model), episodes=episodes, seed=first_episode)


def paired(a: EvalResult, b: EvalResult) -> str:
    gain, se = a.paired_difference(b)
    return f"{gain:+.3f} ± {se:.3f} ({gain / se:+.1f} SE)" if se > 0 else f"{gain:+.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="the first episode's seed (the table's: 0)")
    parser.add_argument("--recurrent-seeds", type=seeds_arg, default=seeds_arg("0-4"))
    parser.add_argument("--jax-seeds", type=seeds_arg, default=seeds_arg("0-9"), help="consecutive seeds")
    parser.add_argument("--jobs", type=int, default=1, help="RecurrentPPO seeds trained at once")
    args = parser.parse_args(argv)

    def play(policy):
        return gym_suite.evaluate(ENV_ID, policy, episodes=args.episodes, seed=args.seed)

    random, optimum = play("random"), play(optimal_policy())
    maps = {actions: play(Map(actions)) for actions in itertools.product((0, 1), repeat=len(OBSERVATION_NAMES))}
    heuristic = maps[HEURISTIC_MAP]
    best_map = max(maps.values(), key=lambda r: r.mean)
    rows: list[tuple[str, EvalResult]] = [
        ("random", random),
        (f"heuristic ({heuristic.policy})", heuristic),
        (f"best memoryless map here ({best_map.policy})", best_map),
        ("optimum", optimum),
    ]
    jax_runs: list[tuple[int, EvalResult]] = []
    if args.jax_seeds:
        from gym_suite.training.jax import train_ppo

        trained = train_ppo(ENV_ID, seed=args.jax_seeds[0], num_seeds=len(args.jax_seeds))
        for seed, act in zip(trained.seeds, trained.policies):
            jax_runs.append((seed, play(act)))
            rows.append((f"JAX PPO seed {seed}", jax_runs[-1][1]))
    recurrent = Parallel(n_jobs=args.jobs)(
        delayed(train_recurrent_and_play)(seed, args.episodes, args.seed) for seed in args.recurrent_seeds
    )
    rows += [(f"RecurrentPPO seed {seed}", result) for seed, result in zip(args.recurrent_seeds, recurrent)]

    span = optimum.mean - random.mean
    print(f"{ENV_ID}: {args.episodes} episodes seeded {args.seed} onwards\n")
    print("| policy | return (mean ± s.e.) | normalized |")
    print("|---|---:|---:|")
    for name, result in rows:
        se = result.std / math.sqrt(len(result.returns))
        print(f"| {name} | {result.mean:.3f} ± {se:.3f} | {(result.mean - random.mean) / span:.3f} |")
    print()
    for seed, result in zip(args.recurrent_seeds, recurrent):
        against = [("heuristic", heuristic), ("best map", best_map)] + [(f"JAX PPO {s}", r) for s, r in jax_runs]
        print(f"RecurrentPPO seed {seed}: " + "; ".join(f"vs {n} {paired(result, r)}" for n, r in against))
        print(f"RecurrentPPO seed {seed}: vs optimum {paired(result, optimum)}")
    if recurrent:
        worst = min(
            (result.paired_difference(r)[0] / result.paired_difference(r)[1])
            for result in recurrent
            for r in [heuristic, best_map] + [r for _, r in jax_runs]
        )
        print(f"\nthe smallest paired lead of a RecurrentPPO seed over a memoryless agent: {worst:.1f} SE")
    print(f"optimum over the heuristic: {paired(optimum, heuristic)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
