"""example-v1's optimum (dynamic programming over beliefs), its best memoryless policy, and the sweep that chose its parameters.

    python -m gym_suite.references.example_v1_optimum [--episodes 2000] [--seed 100000]
    python -m gym_suite.references.example_v1_optimum --sweep

**The optimum.** The agent's position is hidden; what it knows is its *belief*, the probability of
each position given the history. The belief and the steps left are a sufficient statistic, so
``V(b, t) = max_a [ E_b r(a) + sum_o P(o | b, a) V(b', t + 1) ]`` with ``V(b, horizon) = 0`` is
the best expected return of *any* policy (Bayes-optimal). :func:`solve` computes it over every
belief reachable from the start (about 10,000, a few seconds), memoized on the belief rounded to
12 decimals; :class:`OptimalPolicy` plays it, updating the belief from the observations.

**The best memoryless policy** (:func:`memoryless_values`): the best of the ``2 ** 5`` maps from
the 5 observations to the 2 actions, each map's expected return exact; it is the heuristic's rule.
**The sweep** (``--sweep``): random, the heuristic, the best memoryless map and the optimum, exact,
for several lines, flip probabilities and horizons, as example-v1's manual reports them.
"""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from gym_suite.envs.example_env import (
    MOVE_LEFT,
    MOVE_RIGHT,
    OBS_START,
    OBSERVATION_NAMES,
    REWARD_GOAL,
    REWARD_STEP_V1,
    V1,
    ExampleV1Params,
)
from gym_suite.references import script_parser

ENV_ID = "example-v1"
#: Beliefs are memoized rounded to this many decimals (a few orders above float64's rounding).
KEY_DECIMALS = 12
#: Below this probability an observation is taken as impossible (flip probability 0).
IMPOSSIBLE = 1e-15


def registered_horizon(env_id: str = ENV_ID) -> int:
    """The step limit of ``env_id``'s registry row (example-v1's episodes end by it)."""
    import gymnasium

    steps = gymnasium.spec(env_id).max_episode_steps
    if steps is None:
        raise ValueError(f"registered_horizon: {env_id} has no step limit")
    return int(steps)


class BeliefDP:
    """The dynamic program of :func:`solve`: ``value(belief, t)`` and ``action(belief, t)``, memoized.

    ``belief``: the probabilities of the positions ``lf_min .. rt_max`` (a float array summing to 1,
    0 on the goal); ``t``: the steps taken.
    """

    def __init__(self, params: ExampleV1Params = V1, horizon: int | None = None):
        if not isinstance(params, ExampleV1Params):
            raise TypeError(f"BeliefDP: params must be an ExampleV1Params, got {type(params).__name__}")
        horizon = registered_horizon() if horizon is None else horizon
        if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1:
            raise ValueError(f"BeliefDP: horizon must be a positive integer, got {horizon!r}")
        self.params, self.horizon = params, horizon
        positions = np.arange(params.lf_min, params.rt_max + 1)
        self.start = np.zeros(len(positions))
        self.start[(positions != params.goal) & (positions != params.rt_max)] = 1.0 / params.n_starts
        # per action: each position's next index, whether it lands on the goal, whether it is warmer
        self.next_index, self.lands, self.warmer, self.rewards = {}, {}, {}, {}
        for action in (MOVE_LEFT, MOVE_RIGHT):
            moved = np.clip(positions + 2 * action - 1, params.lf_min, params.rt_max)
            self.next_index[action] = moved - params.lf_min
            self.lands[action] = moved == params.goal
            self.warmer[action] = np.abs(params.goal - moved) < np.abs(params.goal - positions)
            self.rewards[action] = np.where(self.lands[action], REWARD_GOAL, REWARD_STEP_V1)
        self.memo: dict[tuple[int, tuple[float, ...]], tuple[float, int]] = {}

    def update(self, belief: np.ndarray, action: int, heard_warmer: bool) -> tuple[float, np.ndarray]:
        """``(P(heard | belief, action, episode goes on), next belief)`` (the belief ``belief``
        unchanged where the probability is 0)."""
        flip = self.params.flip_probability
        likelihood = np.where(self.warmer[action] == bool(heard_warmer), 1.0 - flip, flip)
        weights = belief * ~self.lands[action] * likelihood
        total = float(weights.sum())
        if total <= IMPOSSIBLE:
            return 0.0, belief
        following = np.zeros_like(belief)
        np.add.at(following, self.next_index[action], weights / total)
        return total, following

    def solve(self, belief: np.ndarray, t: int) -> tuple[float, int]:
        """``(value, best action)`` of ``belief`` after ``t`` steps (the action of a tie: left)."""
        if t >= self.horizon:
            return 0.0, MOVE_LEFT
        key = (t, tuple(np.round(belief, KEY_DECIMALS).tolist()))
        found = self.memo.get(key)
        if found is not None:
            return found
        best, best_action = -np.inf, MOVE_LEFT
        for action in (MOVE_LEFT, MOVE_RIGHT):
            value = float(belief @ self.rewards[action])
            for heard in (False, True):
                probability, following = self.update(belief, action, heard)
                if probability > 0.0:
                    value += probability * self.solve(following, t + 1)[0]
            if value > best + 1e-12:
                best, best_action = value, action
        self.memo[key] = (best, best_action)
        return best, best_action

    @property
    def value(self) -> float:
        """The optimal expected return of an episode."""
        return self.solve(self.start, 0)[0]


@functools.lru_cache(maxsize=4)
def solve(params: ExampleV1Params = V1, horizon: int | None = None) -> BeliefDP:
    """The belief dynamic program of ``params`` over ``horizon`` steps (the registered step limit
    by default), solved from the start: ``solve().value`` is the optimum's expected return."""
    dp = BeliefDP(params, horizon)
    dp.solve(dp.start, 0)
    return dp


class OptimalPolicy:
    """The Bayes-optimal policy of :func:`solve`, as a callable ``observation -> action``.

    It keeps the belief: an observation ``OBS_START`` (0: nothing heard, only after a reset) starts
    an episode; every other observation is the last move and what was heard, which updates the
    belief. It pickles (joblib workers) with its solved table.
    """

    name = "optimum"

    def __init__(self, params: ExampleV1Params = V1, horizon: int | None = None):
        self.dp = solve(params, horizon)
        self.belief: np.ndarray | None = None
        self.t = 0

    def reset(self) -> None:
        """Forget the episode (:func:`gym_suite.evaluate` calls it before each one)."""
        self.belief, self.t = None, 0

    def __call__(self, observation: Any) -> int:
        observation = int(observation)
        if not 0 <= observation < len(OBSERVATION_NAMES):
            raise ValueError(
                f"OptimalPolicy: observation must be in 0..{len(OBSERVATION_NAMES) - 1}, got {observation}"
            )
        if observation == OBS_START:
            self.belief, self.t = self.dp.start, 0
        else:
            if self.belief is None:
                raise ValueError("OptimalPolicy: the first observation of an episode must be the start (0)")
            move, heard = divmod(observation - 1, 2)
            probability, self.belief = self.dp.update(self.belief, move, bool(heard))
            if probability == 0.0:
                raise ValueError(f"OptimalPolicy: observation {observation} is impossible after this history")
            self.t += 1
        return self.dp.solve(self.belief, self.t)[1]


def optimal_policy(env_id: str = ENV_ID) -> OptimalPolicy:
    """The optimum of ``env_id`` (example-v1), for :func:`gym_suite.evaluate` and the baselines table."""
    if env_id != ENV_ID:
        raise ValueError(f"optimal_policy: env_id must be {ENV_ID!r}, got {env_id!r}")
    return OptimalPolicy()


#: The heuristic's map, observation by observation (:meth:`ExampleV1.heuristic`).
HEURISTIC_MAP = (MOVE_LEFT, MOVE_RIGHT, MOVE_LEFT, MOVE_LEFT, MOVE_RIGHT)


def _propagate(params: ExampleV1Params, horizon: int | None, act: Callable[[int], tuple[float, float]]) -> float:
    """The expected return of a memoryless policy (``act(observation)``: the probabilities of left
    and right) by propagating the distribution of (position, observation) over ``horizon`` steps."""
    dp = BeliefDP(params, horizon)
    horizon = dp.horizon
    n = len(dp.start)
    mass = np.zeros((n, len(OBSERVATION_NAMES)))
    mass[:, OBS_START] = dp.start
    total = 0.0
    flip = params.flip_probability
    for _ in range(horizon):
        following = np.zeros_like(mass)
        for observation in range(len(OBSERVATION_NAMES)):
            for action, chance in zip((MOVE_LEFT, MOVE_RIGHT), act(observation)):
                here = mass[:, observation] * chance
                total += float(here @ dp.rewards[action])
                alive = here * ~dp.lands[action]
                for heard in (0, 1):
                    likelihood = np.where(dp.warmer[action] == bool(heard), 1.0 - flip, flip)
                    np.add.at(following[:, 1 + 2 * action + heard], dp.next_index[action], alive * likelihood)
        mass = following
    return total


def memoryless_values(params: ExampleV1Params = V1, horizon: int | None = None) -> dict[tuple[int, ...], float]:
    """The expected return of every deterministic map observation -> action (32 maps), exact."""
    return {
        rule: _propagate(params, horizon, lambda o, rule=rule: (1.0 - rule[o], float(rule[o])))
        for rule in itertools.product((MOVE_LEFT, MOVE_RIGHT), repeat=len(OBSERVATION_NAMES))
    }


def random_value(params: ExampleV1Params = V1, horizon: int | None = None) -> float:
    """The expected return of the uniformly random policy, exact."""
    return _propagate(params, horizon, lambda _o: (0.5, 0.5))


def exact_values(params: ExampleV1Params = V1, horizon: int | None = None) -> dict[str, float]:
    """Random, the heuristic, the best memoryless map and the optimum: expected returns, exact."""
    maps = memoryless_values(params, horizon)
    return {
        "random": random_value(params, horizon),
        "heuristic": maps[HEURISTIC_MAP],
        "best memoryless": max(maps.values()),
        "optimum": BeliefDP(params, horizon).value,
    }


def sweep(lines=(10, 12, 16), flips=(0.2, 0.3, 0.35, 0.4), horizons=(2,)) -> list[dict[str, Any]]:
    """:func:`exact_values` over lines ``1 .. rt_max``, flip probabilities and horizons (in line lengths)."""
    from gym_suite.envs.example_env import EXAMPLE_V1

    rows = []
    for rt_max, flip, lengths in itertools.product(lines, flips, horizons):
        params = EXAMPLE_V1.make_params(V1, "sweep", lf_min=1, rt_max=rt_max, flip_probability=flip)
        values = exact_values(params, lengths * rt_max)
        span = values["optimum"] - values["random"]
        rows.append(
            {
                "rt_max": rt_max,
                "flip": flip,
                "horizon": lengths * rt_max,
                **values,
                **{f"{k} normalized": (v - values["random"]) / span for k, v in values.items() if k != "random"},
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    from gym_suite.cli import episodes_int, non_negative_int
    from gym_suite.evaluate import evaluate

    sweep_help = "exact values over lines, flip probabilities, horizons"
    args = script_parser(
        __doc__, episodes=(2000, None, episodes_int), seed=(100_000, None, non_negative_int), sweep=(False, sweep_help)
    ).parse_args(argv)
    if args.sweep:
        for row in sweep():
            print(
                f"1..{row['rt_max']:<3} flip {row['flip']:.2f} horizon {row['horizon']:3d}: "
                f"random {row['random']:7.3f}  heuristic {row['heuristic']:7.3f} ({row['heuristic normalized']:.3f})  "
                f"best memoryless {row['best memoryless']:7.3f} ({row['best memoryless normalized']:.3f})  "
                f"optimum {row['optimum']:7.3f}"
            )
        return 0
    values = exact_values()
    for name, value in values.items():
        print(f"{ENV_ID} {name}: {value:.4f} expected")
    played = evaluate(ENV_ID, optimal_policy(), episodes=args.episodes, seed=args.seed)
    se = played.std / np.sqrt(args.episodes)
    print(f"{ENV_ID} optimum played: {played.mean:.4f} ± {se:.4f} (standard error) over {args.episodes} episodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
