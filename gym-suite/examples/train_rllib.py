"""Train Ray RLlib PPO on a gym-suite environment, checkpoint it, then watch a few episodes.

    python gym-suite/examples/train_rllib.py example-v0 --num-env-runners 1 --iterations 10
    python gym-suite/examples/train_rllib.py heartpole-v0 --num-env-runners 4 --env-config heart_attack_proclivity=0.3
    python gym-suite/examples/train_rllib.py example-v0 --address auto      # on a running Ray cluster

Needs the ``rllib`` extra (``pip install "gym-suite[rllib]"``). Every env runner builds its
environments with ``gymnasium.make_vec("gym_suite:<id>")``, which registers the ids in its own
process, so any number of remote runners work. The restored checkpoint then plays and is scored
next to the random policy and the heuristic on the same seeds.
"""

from __future__ import annotations

import argparse
import sys

import gym_suite
from gym_suite.cli import key_value, non_negative_int, positive_int
from gym_suite.evaluate import play
from gym_suite.progress import Progress
from gym_suite.quiet import import_gym_quietly, make, no_version_notice

import_gym_quietly()  # if anything imports gym: without its "unmaintained" notice
from gym_suite.training.recipes import recipe_budget  # noqa: E402
from gym_suite.training.rllib import RLlibPolicy, train_rllib  # noqa: E402


def rollout(policy, env_id: str, env_config: dict, episodes: int, seed: int, render: str, max_frames: int) -> None:
    """Play ``episodes`` seeded episodes with ``policy``, rendering the first ``max_frames`` steps of each."""
    env = make(env_id, render_mode=None if render == "none" else render, **env_config)
    try:
        for episode in range(episodes):
            print(f"--- episode {episode} (seed {seed + episode})")
            total, steps = 0.0, 0
            for step in play(env, policy, seed + episode):
                total += step.reward
                steps += 1
                if render == "ansi" and steps <= max_frames:
                    print(env.render(), end="")
                elif render == "rgb_array" and steps <= max_frames:
                    print(f"frame {steps}: {env.render().shape}")
            how = "terminated" if step.terminated else "truncated"
            print(f"--- return {total:.3f} after {steps} steps ({how})")
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("id", choices=gym_suite.ENV_IDS)
    add("--env-config", nargs="*", type=key_value, default=[], metavar="KEY=VALUE", help="env_config of the env")
    add("--num-env-runners", type=non_negative_int, default=1, help="remote env runners (0: sample in the driver)")
    add("--num-envs-per-env-runner", type=positive_int, default=1,
        help="env copies each env runner steps as one native vector env")  # fmt: skip
    add("--iterations", type=positive_int, default=None,
        help="training iterations (default: enough for the recipe's step budget)")  # fmt: skip
    add("--steps", type=positive_int, default=None, help="training budget in env steps (instead of --iterations)")
    add("--seed", type=non_negative_int, default=0)
    add("--checkpoint-dir", default=None, help="default checkpoints/<id>-ppo")
    add("--episodes", type=non_negative_int, default=3, help="episodes to watch after training")
    add("--render", choices=["ansi", "human", "rgb_array", "none"], default="ansi")
    add("--max-frames", type=non_negative_int, default=15, help="rendered steps per watched episode")
    add("--eval", type=non_negative_int, default=0, metavar="EPISODES", help="seeded evaluation episodes")
    add("--address", default=None, help="Ray cluster address ('auto': the running cluster)")
    add("--num-cpus", type=positive_int, default=None, help="CPUs of a local Ray instance (default: all)")
    args = parser.parse_args(argv)
    with no_version_notice():  # heartpole-v0 is the tutorial's env, kept on purpose next to its v1
        return run(parser, args)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    env_config = dict(args.env_config)
    try:  # a bad argument fails now, not in a remote runner
        make(args.id, **env_config).close()
    except (TypeError, ValueError) as exc:
        parser.error(f"--env-config: {exc}")

    import ray

    started = not ray.is_initialized()
    if started:
        # Ray gives each env runner (one CPU) OMP_NUM_THREADS=1: one torch thread
        ray.init(address=args.address, num_cpus=args.num_cpus, include_dashboard=False)

    # progress on standard error: a bar on a terminal, a line every few seconds in a log
    if args.iterations is not None:
        progress = Progress(args.iterations, f"train {args.id} ppo", "iteration")
    else:
        progress = Progress(args.steps or recipe_budget(args.id, "rllib-ppo"), f"train {args.id} ppo", "step")
    sampled = [0]

    def report(iteration, result):
        runners = result["env_runners"]
        steps = int(runners["num_env_steps_sampled_lifetime"])
        progress.update(1 if args.iterations is not None else steps - sampled[0])
        sampled[0] = steps
        print(
            f"iteration {iteration:3d}: env steps {steps:>9,}"
            f"  episode return {runners.get('episode_return_mean', float('nan')):10.3f}",
            flush=True,
        )

    try:
        runners = {"num_env_runners": args.num_env_runners, "num_envs_per_env_runner": args.num_envs_per_env_runner}
        checkpoint_dir = args.checkpoint_dir or f"checkpoints/{args.id}-ppo"
        checkpoint, _ = train_rllib(
            args.id, args.steps, seed=args.seed, env_config=env_config, checkpoint_dir=checkpoint_dir,
            iterations=args.iterations, report=report, **runners,
        )  # fmt: skip
        progress.close()
        print(f"checkpoint: {checkpoint}")
    finally:
        if started:
            ray.shutdown()

    # The trained policy, restored from the checkpoint on disk.
    policy = RLlibPolicy.from_checkpoint(checkpoint, args.id, env_config)
    rollout(policy, args.id, env_config, args.episodes, args.seed, args.render, args.max_frames)
    if args.eval:
        scored = {"episodes": args.eval, "seed": args.seed, "env_kwargs": env_config, "progress": True}
        for name in ("random", "heuristic", policy):
            print(gym_suite.evaluate(args.id, name, **scored))
    return 0


if __name__ == "__main__":
    sys.exit(main())
