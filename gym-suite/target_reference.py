"""Reference figures of target-v0: random and oracle policies, and steps per second.

    python gym-suite/target_reference.py [--episodes 1000] [--steps 200000] [--vector-steps 200]

Prints the mean episode length and return of uniformly random actions over seeded episodes
(with the hit probability worked out by Monte Carlo integration next to it), the same for the
"move to the observed target" oracle, and the steps per second of the scalar env made with
``gymnasium.make`` and of the native vector env at N=4096, each next to CartPole-v1 measured the
same way in the same run.
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium
import numpy as np

import gym_suite
from gym_suite.envs.target_env import DISC_RADIUS, FIELD_SIZE

ENV_ID = "target-v0"
VECTOR_ENVS = 4096
ACTION_SEED_OFFSET = 2**32  # random actions of episode i come from seed i + this, not from i


def random_episodes(episodes: int):
    """Episode ``i``: env reset with seed ``i``, actions from a Box seeded with ``i + 2**32``.

    (Seeding the actions with the env's own seed, as ``gym_suite.evaluate(policy="random")``
    does, replays the env's start uniforms as actions: see the correlated figure below.)
    """
    env = gymnasium.make(ENV_ID)
    lengths, returns = [], []
    for i in range(episodes):
        env.reset(seed=i)
        env.action_space.seed(i + ACTION_SEED_OFFSET)
        total, steps, done = 0.0, 0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            total += reward
            steps += 1
            done = terminated or truncated
        lengths.append(steps)
        returns.append(total)
    return np.array(lengths), np.array(returns)


def hit_probability(samples: int = 4_000_000, seed: int = 12345):
    """P(a uniform point of the field hits a uniform target), by Monte Carlo: (p, standard error)."""
    rng = np.random.default_rng(seed)
    size, radius = float(FIELD_SIZE), float(DISC_RADIUS)
    target = rng.uniform(radius, size - radius, size=(samples, 2))
    point = rng.uniform(0.0, size, size=(samples, 2))
    hits = np.hypot(*(point - target).T) <= 2 * radius
    p = hits.mean()
    return p, math.sqrt(p * (1 - p) / samples)


def scalar_steps_per_second(env_id: str, steps: int, **kwargs) -> float:
    env = gymnasium.make(env_id, **kwargs)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(4096)]
    env.reset(seed=0)
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        for t in range(steps):
            _, _, terminated, truncated, _ = env.step(actions[t & 4095])
            if terminated or truncated:
                env.reset()
        best = max(best, steps / (time.perf_counter() - start))
    env.close()
    return best


def vector_steps_per_second(env_id: str, steps: int) -> tuple[float, str]:
    env = gymnasium.make_vec(env_id, num_envs=VECTOR_ENVS, vectorization_mode="vector_entry_point")
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(16)]
    env.reset(seed=0)
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        for t in range(steps):
            env.step(actions[t & 15])
        best = max(best, steps * VECTOR_ENVS / (time.perf_counter() - start))
    name = type(env).__name__
    env.close()
    return best, name


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=200_000, help="scalar steps per timing round")
    parser.add_argument("--vector-steps", type=int, default=200, help="vector steps per timing round")
    args = parser.parse_args(argv)

    print(f"gymnasium {gymnasium.__version__}, numpy {np.__version__}, gym_suite {gym_suite.__version__}")
    print(f"\n== {ENV_ID}: policies over {args.episodes} seeded episodes ==")
    lengths, returns = random_episodes(args.episodes)
    print(
        f"random actions:          mean length {lengths.mean():6.3f} ± {lengths.std() / math.sqrt(len(lengths)):.3f}  "
        f"mean return {returns.mean():7.3f}  (max length {lengths.max()})"
    )
    p, p_se = hit_probability()
    print(
        f"  expected (Monte Carlo): hit probability per step {p:.4f} ± {p_se:.4f} -> "
        f"mean length 1/p = {1 / p:.3f}, mean return 2 - 1/p = {2 - 1 / p:.3f}"
    )
    correlated = gym_suite.evaluate(ENV_ID, policy="random", episodes=args.episodes, n_jobs=-1, progress=False)
    print(
        f"evaluate(policy='random', n_jobs=-1): mean length {correlated.mean_length:6.3f}  "
        f"mean return {correlated.mean:7.3f}  (actions seeded like the env: not independent)"
    )
    oracle = gym_suite.evaluate(ENV_ID, policy="heuristic", episodes=args.episodes, n_jobs=-1, progress=False)
    print(f"oracle (heuristic):      mean length {oracle.mean_length:6.3f}  mean return {oracle.mean:7.3f}")

    print("\n== steps per second (best of 3) ==")
    target_rate = scalar_steps_per_second(ENV_ID, args.steps)
    cartpole_rate = scalar_steps_per_second("CartPole-v1", args.steps)
    print(f"gymnasium.make({ENV_ID!r}):     {target_rate:12,.0f} steps/s (random actions)")
    print(f"gymnasium.make('CartPole-v1'):   {cartpole_rate:12,.0f} steps/s (reference)")
    target_vec, target_name = vector_steps_per_second(ENV_ID, args.vector_steps)
    cartpole_vec, cartpole_name = vector_steps_per_second("CartPole-v1", args.vector_steps)
    print(f"{target_name} N={VECTOR_ENVS}:   {target_vec:12,.0f} steps/s")
    print(f"{cartpole_name} N={VECTOR_ENVS}:  {cartpole_vec:12,.0f} steps/s (reference)")


if __name__ == "__main__":
    main()
