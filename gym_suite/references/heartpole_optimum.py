"""Dynamic-programming policies of ``heartpole-v1`` and ``heartpole-v0`` from the env's own rules.

    python -m gym_suite.references.heartpole_optimum [--ids heartpole-v1,heartpole-v0] [--episodes 1000]
        [--grid STEP] [--finer STEP]

The state that matters is ``(time, time_since_slept, alertness, hypertension)`` (``work_done``
only adds up; intoxication stays 0 without beer): whole half-hours for the first two
(time_since_slept clamped at 80), a grid for the others (``--grid``: 0.07 for heartpole-v1, 0.2
for v0), interpolated linearly. The actions are do_nothing, drink_coffee and sleep: **beer is left
out** (intoxication would be a fourth continuous dimension needing a fine grid around the Ballmer
peak; the threshold policies that drink beer do worse), so the policy is optimal up to the grid for
the no-beer problem: the best known reference, not a proven optimum, and no upper bound is computed.

Each expectation over a step's draws is a midpoint quadrature over the uniforms, every point
through the env's own rules (``HEARTPOLE.transition`` and ``reward`` with ``NUMPY`` ops); the
heart attack is taken at both outcomes, weighted by its chance (v1: its expected cost; v0: an
attack resets hypertension, both branches followed). Each action's expectation is a sparse matrix
over the grid, built once; backward induction is one sparse product per action and stage.

* ``heartpole-v1``: a finite horizon in time elapsed (a sleep lasts 17 half-hours, the episode
  672); the policy reads ``t`` and ``time_since_slept`` and takes the action of the nearest grid
  point. The 0.07 grid (371,142 points) plays 460.03 on seeds 0-999, the baselines' reference.
* ``heartpole-v0``: 1000 steps, return = final ``work_done / time_elapsed`` less 100 per attack,
  not a sum of step rewards: the DP maximises ``E[W - lambda T] / T0 - 100 E[attacks]`` with
  ``lambda = E[W] / E[T]`` and ``T0 = E[T]`` of the policy itself, iterated (Dinkelbach). The
  policy counts its steps from the observation with time_elapsed 0. It plays as the heuristic
  (DP - heuristic -0.0001 ± 0.0004): on v0 the heuristic is optimal to within 0.001.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import sys
import time

import numpy as np
from scipy import sparse

from gym_suite.envs.definition import NUMPY
from gym_suite.envs.heartpole_env import (
    DO_NOTHING,
    DRINK_COFFEE,
    HEART_ATTACK_PENALTY,
    HEARTPOLE,
    SLEEP,
    V0,
    V1,
    HeartPoleState,
)
from gym_suite.references import listed, paired_text, script_parser

ENV_PARAMS = {"heartpole-v0": V0, "heartpole-v1": V1}
ACTIONS = (DO_NOTHING, DRINK_COFFEE, SLEEP)  # no beer (see the docstring)
V0_STEPS = 1000  # heartpole-v0's registered step limit
ALERTNESS_RANGE = (-1.0, 4.5)
HYPERTENSION_RANGE = (0.0, 4.0)
MAX_AWAKE = 80  # time_since_slept beyond this is clamped (tiring is ~1 a half-hour there)
#: The default grid step per id: v0's DP gains nothing over the heuristic even at 0.2 (see above)
#: and takes 1000 stages and a few ratio iterations, so it gets the coarser grid.
DEFAULT_GRID = {"heartpole-v1": 0.07, "heartpole-v0": 0.2}
#: The finest grid step the command takes: the 0.07 grid of heartpole-v1 holds 371,142 points (3 to 6
#: minutes); a step of 0.05 about twice as many.
MIN_GRID = 0.05


@dataclasses.dataclass
class Grid:
    """The grid of (time_since_slept, alertness, hypertension), flattened in that order."""

    step: float = 0.1
    max_awake: int = MAX_AWAKE

    def __post_init__(self):
        if not (isinstance(self.step, (int, float)) and 0.0 < self.step <= 1.0):
            raise ValueError(f"grid step must be a number in (0, 1], got {self.step!r}")
        self.alertness = np.round(np.arange(ALERTNESS_RANGE[0], ALERTNESS_RANGE[1] + 1e-9, self.step), 10)
        self.hypertension = np.round(np.arange(HYPERTENSION_RANGE[0], HYPERTENSION_RANGE[1] + 1e-9, self.step), 10)
        self.awake = np.arange(self.max_awake + 1)
        self.shape = (len(self.awake), len(self.alertness), len(self.hypertension))
        self.size = int(np.prod(self.shape))
        s, a, h = np.meshgrid(self.awake, self.alertness, self.hypertension, indexing="ij")
        self.points = (s.ravel().astype(float), a.ravel(), h.ravel())

    def weights(self, values, axis):
        """Linear interpolation on one axis: ``(lower index, upper index, upper weight)``, clamped."""
        grid = self.alertness if axis == "alertness" else self.hypertension
        x = np.clip((np.asarray(values) - grid[0]) / self.step, 0.0, len(grid) - 1.0)
        low = np.minimum(np.floor(x).astype(np.int64), len(grid) - 2)
        return low, low + 1, x - low

    def nearest(self, values, axis):
        grid = self.alertness if axis == "alertness" else self.hypertension
        return np.clip(np.rint((np.asarray(values) - grid[0]) / self.step).astype(np.int64), 0, len(grid) - 1)

    def flat(self, s, a, h):
        return (s * self.shape[1] + a) * self.shape[2] + h


def _midpoints(count: int) -> np.ndarray:
    return (np.arange(count) + 0.5) / count


def _quadrature(action: int, grid: Grid):
    """Points ``(u_alertness, u_hypertension, u_wake)`` and weights of the action's uniforms."""
    per_step = 2.0 / grid.step  # two points per grid step of what a draw adds
    if action == DRINK_COFFEE:
        ua = _midpoints(max(2, math.ceil(per_step * 1.0)))  # alertness += U(0, 1)
        uh = _midpoints(max(2, math.ceil(per_step * 0.3)))  # hypertension += U(0, 0.3)
        ua, uh = (x.ravel() for x in np.meshgrid(ua, uh, indexing="ij"))
        return ua, uh, np.full(ua.shape, 0.5), np.full(ua.shape, 1.0 / ua.size)
    if action == SLEEP:
        uw = _midpoints(max(2, math.ceil(per_step * 0.6)))  # wake-up alertness U(0.7, 1.3)
        return np.full(uw.shape, 0.5), np.full(uw.shape, 0.5), uw, np.full(uw.shape, 1.0 / uw.size)
    return np.array([0.5]), np.array([0.5]), np.array([0.5]), np.array([1.0])


@dataclasses.dataclass
class Model:
    """Per action: the expected-transition matrix, the expected reward and the expected
    productivity, time and attacks of one step from every grid point (v0's Dinkelbach needs them)."""

    matrix: sparse.csr_matrix
    reward: np.ndarray
    productivity: np.ndarray
    duration: np.ndarray
    attacks: np.ndarray


def _csr(rows, cols, vals, n) -> sparse.csr_matrix:
    if not rows:
        return sparse.csr_matrix((n, n))
    matrix = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    matrix.sum_duplicates()
    return matrix


def build_models(params, grid: Grid) -> dict[int, Model]:
    """The one-step expectations of every action from every grid point, by the env's rules."""
    s, a, h = grid.points
    n = grid.size
    zeros = np.zeros(n)
    start = HeartPoleState(a, h, zeros, s, zeros, zeros, np.full(n, -1), np.zeros(n, bool), zeros, zeros)
    models = {}
    # The attack draw: no attack (u = 1), then an attack wherever its chance is > 0 (u = 0). When an
    # attack changes neither the next state nor the reward (v1: expected cost, no reset), one is enough.
    branches = (1.0,) if params.expected_cost and not params.attack_resets_hypertension else (1.0, 0.0)
    for action in ACTIONS:
        actions = np.full(n, action)
        rows, cols, vals = [], [], []
        matrix = sparse.csr_matrix((n, n))
        reward, productivity, duration, attacks = (np.zeros(n) for _ in range(4))
        for ua, uh, uw, weight in zip(*_quadrature(action, grid)):
            for u_heart in branches:
                u = (np.full(n, ua), np.full(n, uh), np.full(n, 0.5), np.full(n, uw), np.full(n, u_heart))
                new = HEARTPOLE.transition(start, actions, u, params, NUMPY)
                chance = new.heart_attack_probability
                w = weight * (1.0 if len(branches) == 1 else np.where(new.heart_attack, chance, 1.0 - chance))
                reward += w * HEARTPOLE.reward(start, actions, new, params, NUMPY)
                productivity += w * new.productivity
                duration += w * new.time_elapsed
                attacks += w * new.heart_attack
                s_next = np.minimum(np.rint(new.time_since_slept).astype(np.int64), grid.max_awake)
                a_lo, a_hi, a_w = grid.weights(new.alertness, "alertness")
                h_lo, h_hi, h_w = grid.weights(new.hypertension, "hypertension")
                for ai, aw in ((a_lo, 1.0 - a_w), (a_hi, a_w)):
                    for hi, hw in ((h_lo, 1.0 - h_w), (h_hi, h_w)):
                        rows.append(np.arange(n))
                        cols.append(grid.flat(s_next, ai, hi))
                        vals.append(w * aw * hw)
                if len(rows) >= 64:  # sum as we go: fine grids would hold every point's entries
                    matrix = matrix + _csr(rows, cols, vals, n)
                    rows, cols, vals = [], [], []
        matrix = matrix + _csr(rows, cols, vals, n)
        matrix.eliminate_zeros()
        models[action] = Model(matrix, reward, productivity, duration, attacks)
    return models


@dataclasses.dataclass
class Solution:
    """A solved DP: the action table (stage x grid point), the predicted value from the start,
    and, for v0, the expected productivity, time and attacks of an episode."""

    env_id: str
    grid: Grid
    table: np.ndarray  # int8 actions, (stages, grid.size)
    value: float
    seconds: float
    details: dict


def _solve_v1(params, grid, models, horizon):
    n = grid.size
    horizon = int(horizon)
    night = int(round(float(np.max(models[SLEEP].duration)))) - 1  # 16: a sleep step lasts 17
    values = {}  # t -> V_t, kept for the next 17 stages only
    table = np.empty((horizon, n), dtype=np.int8)
    zero = np.zeros(n)
    for t in range(horizon - 1, -1, -1):
        next_1 = values.get(t + 1, zero)
        next_sleep = values.get(t + 1 + night, zero)
        q = np.stack(
            [
                models[action].reward + models[action].matrix @ (next_sleep if action == SLEEP else next_1)
                for action in ACTIONS
            ]
        )
        best = np.argmax(q, axis=0)
        table[t] = np.asarray(ACTIONS, dtype=np.int8)[best]
        values[t] = q[best, np.arange(n)]
        values.pop(t + 1 + night, None)
    start = grid.flat(0, grid.nearest(0.0, "alertness"), grid.nearest(0.0, "hypertension"))
    return table, float(values[0][start]), {}


#: heartpole-v0's first guess of the ratio E[W] / E[T] and of E[T] (near the fixed point with the
#: default arguments, so that one or two iterations settle it).
V0_GUESS = (0.3374, 1952.0)


def _solve_v0(params, grid, models, steps, max_iterations=4, tolerance=1e-4):
    n = grid.size
    start = grid.flat(0, grid.nearest(0.0, "alertness"), grid.nearest(0.0, "hypertension"))
    ratio, mean_time = V0_GUESS
    iterations = 0
    for _ in range(max_iterations):
        iterations += 1
        table = np.empty((steps, n), dtype=np.int8)
        value = np.zeros(n)
        work, duration, attacks = np.zeros(n), np.zeros(n), np.zeros(n)
        for k in range(steps - 1, -1, -1):
            q = np.stack(
                [
                    (models[a].productivity - ratio * models[a].duration) / mean_time
                    - HEART_ATTACK_PENALTY * models[a].attacks
                    + models[a].matrix @ value
                    for a in ACTIONS
                ]
            )
            best = np.argmax(q, axis=0)
            table[k] = np.asarray(ACTIONS, dtype=np.int8)[best]
            value = q[best, np.arange(n)]
            totals = np.column_stack([work, duration, attacks])
            new = np.empty((n, 3))
            for i, a in enumerate(ACTIONS):
                rows = best == i
                m = models[a]
                step = np.column_stack([m.productivity, m.duration, m.attacks]) + m.matrix @ totals
                new[rows] = step[rows]
            work, duration, attacks = new.T
        previous, ratio, mean_time = ratio, work[start] / duration[start], duration[start]
        if abs(ratio - previous) < tolerance * abs(previous):
            break
    details = {
        "work": round(float(work[start]), 3),
        "time": round(float(duration[start]), 3),
        "attacks": round(float(attacks[start]), 5),
        "ratio": round(float(ratio), 6),
        "iterations": iterations,
    }
    return table, float(ratio - HEART_ATTACK_PENALTY * attacks[start]), details


def _grid_step(env_id: str, grid_step: float | None) -> float:
    """``grid_step``, ``DEFAULT_GRID``'s for None; ``ValueError`` for an id without a DP or a step outside [MIN_GRID, 1]."""
    if env_id not in ENV_PARAMS:
        raise ValueError(f"env_id must be one of {sorted(ENV_PARAMS)}, got {env_id!r}")
    if grid_step is None:
        return DEFAULT_GRID[env_id]
    if (
        isinstance(grid_step, bool)
        or not isinstance(grid_step, (int, float, np.integer, np.floating))
        or not MIN_GRID <= grid_step <= 1
    ):
        raise ValueError(f"grid_step must be None or a number in [{MIN_GRID}, 1], got {grid_step!r}")
    return float(grid_step)


def solve(env_id: str = "heartpole-v1", grid_step: float | None = None, **options) -> Solution:
    """Backward induction for ``env_id`` with the env's arguments ``options`` (heart_attack_proclivity,
    expected_cost). ``grid_step``: the alertness and hypertension grid (``DEFAULT_GRID``)."""
    grid_step = _grid_step(env_id, grid_step)
    params = HEARTPOLE.make_params(ENV_PARAMS[env_id], env_id, **options)
    begin = time.perf_counter()
    grid = Grid(grid_step)
    models = build_models(params, grid)
    if env_id == "heartpole-v1":
        table, value, details = _solve_v1(params, grid, models, params.time_horizon)
    else:
        table, value, details = _solve_v0(params, grid, models, V0_STEPS)
    return Solution(env_id, grid, table, value, time.perf_counter() - begin, details)


class DPPolicy:
    """``observation -> action`` from a solved table: the action of the nearest grid point.

    heartpole-v1: the stage is the observed time elapsed. heartpole-v0: the stage is the step
    count, counted by the policy from the episode's start (time_elapsed 0), so an instance plays
    one episode at a time (``gym_suite.evaluate`` does so)."""

    def __init__(self, solution: Solution):
        self.solution = solution
        self.name = f"dp-{solution.env_id}"
        self._by_time = solution.env_id == "heartpole-v1"
        self._step = 0

    def _lookup(self, obs: np.ndarray, stage: np.ndarray) -> np.ndarray:
        grid = self.solution.grid
        s = np.minimum(np.rint(obs[:, 3]).astype(np.int64), grid.max_awake)
        index = grid.flat(s, grid.nearest(obs[:, 0], "alertness"), grid.nearest(obs[:, 1], "hypertension"))
        stage = np.clip(stage, 0, len(self.solution.table) - 1)
        return self.solution.table[stage, index].astype(np.int64)

    def __call__(self, observation) -> int:
        obs = np.asarray(observation, dtype=np.float64).reshape(1, -1)
        if self._by_time:
            stage = np.rint(obs[:, 4]).astype(np.int64)
        else:
            if obs[0, 4] == 0.0:
                self._step = 0
            stage = np.array([self._step])
            self._step += 1
        return int(self._lookup(obs, stage)[0])


class BatchedDPPolicy(DPPolicy):
    """heartpole-v1's policy, with ``act_batch`` (one lookup for a batch of observations)."""

    def act_batch(self, observations) -> np.ndarray:
        obs = np.asarray(observations, dtype=np.float64).reshape(-1, 6)
        return self._lookup(obs, np.rint(obs[:, 4]).astype(np.int64))


_CACHE: dict = {}


def optimal_policy(env_id: str = "heartpole-v1", grid_step: float | None = None, **options) -> DPPolicy:
    """The dynamic-programming policy (``grid_step`` grid, ``DEFAULT_GRID`` by default; no beer) of
    ``env_id`` as a callable ``observation -> action``; ``options`` are the env's arguments
    (heart_attack_proclivity, expected_cost). Solved once per process."""
    grid_step = _grid_step(env_id, grid_step)
    key = (env_id, grid_step, tuple(sorted(options.items())))
    if key not in _CACHE:
        _CACHE[key] = solve(env_id, grid_step, **options)
    return (BatchedDPPolicy if env_id == "heartpole-v1" else DPPolicy)(_CACHE[key])


def main(argv=None) -> int:
    from gym_suite.cli import _checked_int, _real, episodes_int, non_negative_int
    from gym_suite.evaluate import evaluate
    from gym_suite.references import heartpole_v1_reference as reference

    rule = reference.threshold_policy(*reference.BEST_THRESHOLDS)  # the best threshold policy
    # below MIN_GRID the points outgrow a machine's memory (they grow with the inverse square of the step)
    grid_step = _checked_int(
        lambda x: MIN_GRID <= x <= 1, f"must be a grid step in [{MIN_GRID}, 1], got {{value}}", read=_real
    )
    finer_step = _checked_int(
        lambda x: x == 0 or MIN_GRID <= x <= 1,
        f"must be 0 (none) or a grid step in [{MIN_GRID}, 1], got {{value}}",
        read=_real,
    )
    args = script_parser(
        __doc__,
        ids=("heartpole-v1,heartpole-v0", None, listed(choices=DEFAULT_GRID)),
        episodes=(1000, None, episodes_int),
        seed=(0, None, non_negative_int),
        grid=(None, "grid step (default: 0.07 for v1, 0.2 for v0)", grid_step),
        finer=(0.0, "also solve with this grid step (the DP value)", finer_step),
    ).parse_args(argv)
    run = functools.partial(evaluate, episodes=args.episodes, seed=args.seed)
    for env_id in args.ids:
        step = DEFAULT_GRID[env_id] if args.grid is None else args.grid
        solution = _CACHE[(env_id, step, ())] = solve(env_id, step)
        print(f"{env_id}: grid {step} ({solution.grid.size:,} points), solved in {solution.seconds:.0f} s")
        print(f"  DP predicted value {solution.value:.3f} {solution.details or ''}", flush=True)
        begin = time.perf_counter()
        dp = run(env_id, optimal_policy(env_id, step))
        print(f"  DP policy played: {dp.mean:.3f} ± {dp.std:.3f} ({time.perf_counter() - begin:.0f} s)")
        heuristic = run(env_id, "heuristic")
        print(f"  heuristic: {heuristic.mean:.3f} ± {heuristic.std:.3f}; DP - heuristic {paired_text(dp, heuristic)}")
        if env_id == "heartpole-v1":
            threshold = run(env_id, lambda obs: int(rule(np.asarray(obs, dtype=np.float32).reshape(1, -1), 0, None)[0]))
            print(
                f"  best threshold policy: {threshold.mean:.3f} ± {threshold.std:.3f}; "
                f"DP - threshold {paired_text(dp, threshold)}"
            )
        if args.finer:
            finer = _CACHE[(env_id, args.finer, ())] = solve(env_id, args.finer)
            print(f"  grid {args.finer}: DP predicted value {finer.value:.3f}, solved in {finer.seconds:.0f} s")
            played = run(env_id, optimal_policy(env_id, args.finer))
            print(
                f"  grid {args.finer} played: {played.mean:.3f} ± {played.std:.3f}; - grid {step} {paired_text(played, dp)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
