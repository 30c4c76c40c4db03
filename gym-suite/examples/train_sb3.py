"""Train Stable-Baselines3 PPO or DQN on a gym-suite environment, save it, evaluate it.

    python gym-suite/examples/train_sb3.py example-v0 --algo ppo --steps 20000 --out models/example-ppo --eval
    python gym-suite/examples/train_sb3.py heartpole-v0 --algo dqn --env-kwargs heart_attack_proclivity=0.3
    python gym-suite/examples/train_sb3.py example-v0 --algo ppo --load models/example-ppo --eval 1000

Needs the ``sb3`` extra (``pip install "gym-suite[sb3]"``). The settings and budget are the id's
recipe (``gym_suite.training.recipes``), on its native vector env (``--vec-env dummy``: DummyVecEnv).
"""

from __future__ import annotations

import argparse
import sys
import time

import gym_suite
from gym_suite.cli import jobs_int, key_value, non_negative_int, positive_int
from gym_suite.progress import sb3_callback
from gym_suite.quiet import import_gym_quietly, make, no_version_notice

import_gym_quietly()  # Stable-Baselines3 imports gym when installed: without its "unmaintained" notice
from gym_suite.training.sb3 import VEC_ENVS, SB3Policy, load_sb3_policy, save_sb3, train_sb3  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("id", choices=gym_suite.ENV_IDS)
    add("--algo", choices=["ppo", "dqn"], default="ppo")
    add("--steps", type=positive_int, default=None, help="training budget in env steps (default: the recipe's)")
    add("--seed", type=non_negative_int, default=0)
    add("--env-kwargs", nargs="*", type=key_value, default=[], metavar="KEY=VALUE", help="arguments of the env")
    add("--out", default=None, help="where to save the model (default models/<id>-<algo>)")
    add("--load", default=None, help="skip training: evaluate the model saved at this path")
    add("--eval", type=positive_int, nargs="?", const=1000, default=0, metavar="EPISODES",
        help="evaluate the agent on EPISODES seeded episodes (1000 when given alone)")  # fmt: skip
    add("--jobs", type=jobs_int, default=-1, help="evaluation processes (-1: every core)")
    add("--verbose", type=int, default=0, help="Stable-Baselines3 verbosity (0, 1 or 2)")
    add("--vec-env", choices=VEC_ENVS, default="native",
        help="native: the id's native vector env (SuiteVecEnv); dummy: DummyVecEnv of scalar envs")  # fmt: skip
    add("--n-envs", type=positive_int, default=None,
        help="env copies PPO trains on (default: the recipe's; DQN trains on one)")  # fmt: skip
    args = parser.parse_args(argv)
    with no_version_notice():  # heartpole-v0 is the tutorial's env, kept on purpose next to its v1
        return run(parser, args)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    env_kwargs = dict(args.env_kwargs)
    try:  # a bad argument fails now, not after training
        make(args.id, **env_kwargs).close()
    except (TypeError, ValueError) as exc:
        parser.error(f"--env-kwargs: {exc}")

    if args.load:
        path = args.load
        policy = load_sb3_policy(path, args.algo, args.id, env_kwargs)
    else:
        path = args.out or f"models/{args.id}-{args.algo}"
        start = time.perf_counter()
        model = train_sb3(
            args.id, args.algo, args.steps, seed=args.seed, env_kwargs=env_kwargs, verbose=args.verbose,
            vec_env=args.vec_env, n_envs=args.n_envs, callback=sb3_callback(f"train {args.id} {args.algo}"),  # a bar, or log lines
        )  # fmt: skip
        elapsed = time.perf_counter() - start
        print(f"trained {args.algo.upper()} on {args.id} for {model.num_timesteps:,} steps in {elapsed:.1f} s")
        for written in save_sb3(model, path):
            print(f"saved {written}")
        policy = SB3Policy(model, name=f"sb3-{args.algo}")

    if args.eval:
        scored = {"episodes": args.eval, "seed": args.seed, "n_jobs": args.jobs, "env_kwargs": env_kwargs}
        for name in ("random", "heuristic", policy):
            print(gym_suite.evaluate(args.id, name, **scored, progress=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
