"""target-v1's optimum (the earliest intercept), the lead policy, and the simulations that chose its parameters.

    python -m gym_suite.references.target_optimum [--episodes 2000] [--seed 100000]
    python -m gym_suite.references.target_optimum --sweep [--episodes 2000] [--seed 100000]

**The optimum.** After the start the target's path is fixed (constant speed, bouncing off the
walls) whatever the worker does. The worker moves at most ``WORKER_SPEED`` (1) a step, so it can
touch the target at step ``t`` only if ``|P(t) - W| <= t + 2 * radius`` (``P(t)`` the target's
centre then, ``W`` the worker's start); the earliest such ``t`` (:func:`earliest_intercept`) is
attained by heading straight for ``P(t)`` at full speed (the field is convex), and the plan stays
the same from step to step, so :class:`OptimalPolicy` recomputes it from each observation; with
the step limit ``L`` the optimal return is ``-min(t, L)``. (The policy reads float32
observations: it agrees with the float64 bound unless its margin is about ``1e-5``.)

**Lead** (:func:`lead_action`): aim where the target would be if it kept its velocity (no
bounce); pure pursuit (the env's heuristic) aims where it is now. **The sweep** (``--sweep``):
random, pursuit, lead and the optimum for several target speeds, as target-v1's manual reports
them; normalized is ``(return - random) / (optimum - random)``.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from gym_suite.envs.definition import NUMPY, draws_at_start
from gym_suite.envs.target_env import TARGET_V1, V1, WORKER_SPEED, TargetV1Params, bounce, pursuit
from gym_suite.references import listed, script_parser

ENV_ID = "target-v1"
#: The intercepts :func:`earliest_intercept` looks for, in steps from the observation (a target
#: not caught by then counts as never: longer than any step limit that matters).
HORIZON = 1000
NEVER = HORIZON + 1


def target_path(observations: np.ndarray, steps: int, params: TargetV1Params = V1) -> np.ndarray:
    """The target's centres over the next ``steps`` steps, ``(steps + 1, N, 2)`` (row 0: now), by
    the env's own :func:`bounce` on float64."""
    obs = np.asarray(observations, dtype=np.float64).reshape(-1, 6)
    low, high = params.radius, params.side - params.radius
    x, y, vx, vy = obs[:, 2].copy(), obs[:, 3].copy(), obs[:, 4].copy(), obs[:, 5].copy()
    path = np.empty((steps + 1, len(obs), 2))
    path[0, :, 0], path[0, :, 1] = x, y
    for t in range(1, steps + 1):
        x, vx = bounce(x, vx, low, high, NUMPY)
        y, vy = bounce(y, vy, low, high, NUMPY)
        path[t, :, 0], path[t, :, 1] = x, y
    return path


def earliest_intercept(
    observations: np.ndarray, params: TargetV1Params = V1, horizon: int = HORIZON
) -> tuple[np.ndarray, np.ndarray]:
    """Per observation, the earliest step ``t >= 0`` with ``|P(t) - W| <= t * WORKER_SPEED + 2 *
    radius`` (``NEVER`` if none up to ``horizon``), and ``P(t)`` (``(N,)`` ints, ``(N, 2)``)."""
    obs = np.asarray(observations, dtype=np.float64).reshape(-1, 6)
    path = target_path(obs, horizon, params)
    gap = np.hypot(path[..., 0] - obs[:, 0], path[..., 1] - obs[:, 1])  # (horizon + 1, N)
    reach = np.arange(horizon + 1)[:, None] * WORKER_SPEED + 2.0 * params.radius
    ok = gap <= reach
    found = ok.any(axis=0)
    first = np.where(found, ok.argmax(axis=0), NEVER)
    point = path[np.minimum(first, horizon), np.arange(len(obs))]
    return first, point


class OptimalPolicy:
    """Head straight for the earliest intercept point at full speed (shorter on the last step so as
    not to overshoot it); a callable ``observation -> action`` with ``act_batch``."""

    def __init__(self, params: TargetV1Params = V1):
        self.params = params

    def act_batch(self, observations) -> np.ndarray:
        obs = np.asarray(observations, dtype=np.float64).reshape(-1, 6)
        steps, point = earliest_intercept(obs, self.params)
        delta = point - obs[:, 0:2]
        length = np.hypot(delta[:, 0], delta[:, 1])
        # uncatchable within the horizon: head for the target's position at the horizon (any move scores the same)
        scale = np.where(length > WORKER_SPEED, WORKER_SPEED / np.maximum(length, 1e-300), 1.0)
        action = delta * scale[:, None]
        return (action * (1.0 - 1e-6)).astype(np.float32)  # float32 rounding must not push it past length 1

    def __call__(self, observation) -> np.ndarray:
        return self.act_batch([observation])[0]


def lead_action(observations: np.ndarray) -> np.ndarray:
    """Aim at full speed where the target meets the worker if it keeps its current velocity (no
    bounce): the smallest ``t > 0`` with ``|D + V t| = t`` (``D`` the target's offset, ``V`` its
    velocity); pure pursuit where there is none (a target faster than the worker, running away)."""
    obs = np.asarray(observations, dtype=np.float64).reshape(-1, 6)
    d, v = obs[:, 2:4] - obs[:, 0:2], obs[:, 4:6]
    a = (v * v).sum(1) - WORKER_SPEED**2
    b = 2.0 * (d * v).sum(1)
    c = (d * d).sum(1)
    disc = b * b - 4.0 * a * c
    root = np.sqrt(np.maximum(disc, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        candidates = np.stack([(-b - root) / (2.0 * a), (-b + root) / (2.0 * a), -c / np.where(b == 0, np.nan, b)])
    candidates = np.where(np.isfinite(candidates) & (candidates > 0) & (disc >= 0), candidates, np.inf)
    linear = np.abs(a) < 1e-12
    candidates[:2, linear] = np.inf
    candidates[2, ~linear] = np.inf
    t = candidates.min(axis=0)
    aim = np.where(np.isfinite(t)[:, None], d + v * np.where(np.isfinite(t), t, 0.0)[:, None], d)
    length = np.maximum(np.hypot(aim[:, 0], aim[:, 1]), 1e-300)
    return (aim / length[:, None] * (1.0 - 1e-6)).astype(np.float32)


class LeadPolicy:
    def act_batch(self, observations) -> np.ndarray:
        return lead_action(observations)

    def __call__(self, observation) -> np.ndarray:
        return lead_action(observation)[0]


def rollout(policy, starts, params: TargetV1Params, limit: int, rng: np.random.Generator | None = None) -> np.ndarray:
    """Episode lengths of ``policy`` (``"random"``, ``"pursuit"`` or ``act_batch``) from the start states
    ``starts`` (a ``TargetV1State`` of arrays) on the env's rules, numpy-native (the sweep's fast path)."""
    state = starts
    n = len(state.worker_x)
    done = np.zeros(n, dtype=bool)
    length = np.full(n, limit)
    for t in range(1, limit + 1):
        obs = TARGET_V1.observation(state, params, NUMPY)
        if policy == "random":
            action = rng.uniform(-1.0, 1.0, size=(n, 2)).astype(np.float32)
        elif policy == "pursuit":
            action = pursuit(obs)
        else:
            action = policy.act_batch(obs)
        action = action.astype(np.float64)
        state = TARGET_V1.transition(state, (action[:, 0], action[:, 1]), (), params, NUMPY)
        hit = TARGET_V1.terminal(state, params, NUMPY) & ~done
        length[hit] = t
        done |= hit
        if done.all():
            break
    return length


def sweep(episodes: int, seed: int, speeds, limit: int) -> None:
    print(f"{episodes} starts from seed {seed}; step limit {limit}; returns (mean ± s.e.) and normalized")
    print(f"{'speed':>6} {'random':>16} {'pursuit':>16} {'lead':>16} {'optimum':>16}  never  norm: pursuit lead")
    for speed in speeds:
        params = TARGET_V1.make_params(V1, ENV_ID, target_speed=speed)
        rng = np.random.default_rng(seed)
        u = rng.random((draws_at_start(TARGET_V1, params), episodes))
        starts = TARGET_V1.initial(list(u), params, NUMPY)
        obs = TARGET_V1.observation(starts, params, NUMPY)
        bound, _ = earliest_intercept(obs, params)
        scores = {
            "random": -rollout("random", starts, params, limit, np.random.default_rng(seed + 1)),
            "pursuit": -rollout("pursuit", starts, params, limit),
            "lead": -rollout(LeadPolicy(), starts, params, limit),
            "optimum": -np.minimum(bound, limit),
        }
        cells = [f"{s.mean():8.2f} ± {s.std(ddof=1) / math.sqrt(episodes):5.2f}" for s in scores.values()]
        r, o = scores["random"].mean(), scores["optimum"].mean()
        norm = [(scores[k].mean() - r) / (o - r) for k in ("pursuit", "lead")]
        never = (bound > limit).mean()
        print(f"{speed:6.2f} " + " ".join(cells) + f"  {never:5.3f}  {norm[0]:.3f} {norm[1]:.3f}")


def main(argv=None) -> int:
    from gym_suite.cli import _real, episodes_int, non_negative_int
    from gym_suite.evaluate import evaluate

    def speed(text: str) -> float:  # checked as the env checks it
        return TARGET_V1.make_params(V1, ENV_ID, target_speed=_real(text)).target_speed

    args = script_parser(
        __doc__,
        episodes=(2000, None, episodes_int),
        seed=(100_000, None, non_negative_int),
        sweep=(False, "the parameter sweep on the rules (numpy)"),
        speeds=("0.9,1.0,1.1,1.2,1.3,1.5", "the sweep's target speeds", listed(speed)),
        limit=(300, "the sweep's step limit"),
    ).parse_args(argv)
    if args.sweep:
        sweep(args.episodes, args.seed, args.speeds, args.limit)
        return 0
    run = functools.partial(evaluate, ENV_ID, episodes=args.episodes, seed=args.seed)
    rows = {"random": run("random"), "heuristic (pure pursuit)": run("heuristic")}
    rows |= {"lead": run(LeadPolicy()), "optimum": run(OptimalPolicy())}
    r, o = rows["random"].mean, rows["optimum"].mean
    print(f"{ENV_ID}: {args.episodes} episodes, seeds {args.seed}..{args.seed + args.episodes - 1}")
    for name, result in rows.items():
        se = result.returns.std(ddof=1) / math.sqrt(len(result.returns))
        print(f"  {name:26s} {result.mean:8.2f} ± {se:.2f} (s.e.)  normalized {(result.mean - r) / (o - r):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
