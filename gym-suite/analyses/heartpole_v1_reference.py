"""Reference behaviour of ``heartpole-v1``: simple policies on the same seeded episodes.

    python gym-suite/analyses/heartpole_v1_reference.py [--episodes 1000] [--search-episodes 1000]

Every policy plays episodes ``0 .. episodes-1``, episode ``i`` exactly as
``gymnasium.make("heartpole-v1").reset(seed=i)`` would play it (checked against the scalar env on
a few episodes at the start), so each episode draws the same uniforms whatever the policy does
and the episode-by-episode difference from the heuristic measures the policies themselves. The
episodes run side by side in numpy arrays with the env's own rules (:func:`heartpole_rules` with
``V1_RULES``), one stream per episode. The random policy samples ``Discrete(4)`` seeded with
``action_seed(i)`` in episode ``i``, as ``gym_suite.evaluate`` does.

Policies: random actions, always sleep, the heuristic (sleep when alertness < 0.4, no drinks),
and the best threshold policy (sleep below one alertness, coffee below another while the
hypertension is below a cap, beer while the intoxication is below a threshold and the
hypertension below another cap) found by a random search and a coordinate refinement on seeds
10,000 onwards, disjoint from the evaluation seeds. Printed, per policy: the return's mean ±
standard deviation, the heart attacks drawn per episode, the episode's steps, the return with
the drawn attacks charged instead of their expected cost (``expected_cost=False``: the same
draws), and the paired difference from the heuristic, mean ± standard error.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import gymnasium
import numpy as np
from gymnasium.utils import seeding

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs._definition import NUMPY
from gym_suite.envs.heartpole_env import (
    DEFAULT_HEART_ATTACK_PROCLIVITY,
    DO_NOTHING,
    DRINK_BEER,
    DRINK_COFFEE,
    HEART_ATTACK_PENALTY,
    HEARTPOLE,
    SLEEP,
    STATE_NAMES,
    TWO_WEEKS,
    V1,
    HeartPoleState,
    heuristic_actions,
)
from gym_suite.evaluate import action_seed

ENV_ID = "heartpole-v1"
MAX_STEPS = int(TWO_WEEKS)  # every step lasts at least a half-hour
UNIFORMS_PER_STEP = HEARTPOLE.step_draws
ALERTNESS, HYPERTENSION, INTOXICATION = 0, 1, 2
SEARCH_SEED = 10_000  # the threshold search's episodes start here, the evaluation's at 0
THRESHOLD_NAMES = ("sleep_below", "coffee_below", "coffee_hypertension_below", "beer_below", "beer_hypertension_below")


def episode_uniforms(seeds) -> np.ndarray:
    """``(len(seeds), MAX_STEPS, 5)``: row ``i`` the uniforms of the episode reset with ``seeds[i]``."""
    out = np.empty((len(seeds), MAX_STEPS, UNIFORMS_PER_STEP))
    for row, seed in enumerate(seeds):
        out[row] = seeding.np_random(int(seed))[0].random((MAX_STEPS, UNIFORMS_PER_STEP))
    return out


def v1_step(current, actions, u, params=V1):
    """One step of heartpole-v1's rules (``HEARTPOLE.transition`` and ``reward`` on numpy rows).

    ``current``: the ``(6, n)`` quantities, ``u``: the ``(5, n)`` uniforms. Returns the new
    ``(6, n)`` quantities, the reward, the drawn attack, the productivity and the attack's chance.
    """
    n = current.shape[1]
    state = HeartPoleState(*current, np.full(n, -1), np.zeros(n, bool), np.zeros(n), np.zeros(n))
    new = HEARTPOLE.transition(state, actions, tuple(u), params, NUMPY)
    reward = HEARTPOLE.reward(state, actions, new, params, NUMPY)
    return np.array(new[:6]), reward, new.heart_attack, new.productivity, new.heart_attack_probability


def play(policy, seeds, uniforms=None, proclivity=DEFAULT_HEART_ATTACK_PROCLIVITY) -> dict:
    """One episode per seed, side by side. ``policy(observations, step, rows)`` -> actions.

    ``observations`` is the ``(len(rows), 6)`` float32 batch of the episodes still running,
    ``rows`` their indices into ``seeds`` and ``step`` the step number (the same for all, since
    every episode starts together). Returns per-episode arrays: ``return``, ``drawn_return``
    (100 per drawn attack instead of the expected cost), ``attacks``, ``expected_attacks``,
    ``work``, ``steps``, ``time`` (time_elapsed at the end) and the counts of ``coffee``,
    ``beer`` and ``sleep``.
    """
    n = len(seeds)
    if uniforms is None:
        uniforms = episode_uniforms(seeds)
    state = np.zeros((len(STATE_NAMES), n))
    out = {
        key: np.zeros(n)
        for key in ("return", "attacks", "expected_attacks", "work", "steps", "coffee", "beer", "sleep")
    }
    rows = np.arange(n)
    params = dataclasses.replace(V1, heart_attack_proclivity=float(proclivity))
    for step in range(MAX_STEPS):
        current = state[:, rows]
        actions = np.asarray(policy(current.T.astype(np.float32), step, rows), dtype=np.int64)
        new, reward, attack, productivity, probability = v1_step(current, actions, uniforms[rows, step].T, params)
        state[:, rows] = new
        for key, value in (
            ("return", reward),
            ("attacks", attack),
            ("expected_attacks", probability),
            ("work", productivity),
            ("steps", 1),
            ("coffee", actions == DRINK_COFFEE),
            ("beer", actions == DRINK_BEER),
            ("sleep", actions == SLEEP),
        ):
            out[key][rows] += value
        rows = rows[new[4] < TWO_WEEKS]
        if not rows.size:
            break
    out["time"] = state[4].copy()
    out["drawn_return"] = out["work"] - HEART_ATTACK_PENALTY * out["attacks"]
    return out


def check_against_the_env(policy, seeds) -> None:
    """The scalar env, reset with each seed, gives the returns :func:`play` computes."""
    batch = play(policy, seeds)
    env = gymnasium.make(ENV_ID)
    for row, seed in enumerate(seeds):
        obs, _ = env.reset(seed=int(seed))
        total, step, done = 0.0, 0, False
        while not done:
            action = int(policy(obs[None, :], step, np.array([row]))[0])
            obs, reward, terminated, truncated, _ = env.step(action)
            total, step, done = total + reward, step + 1, terminated or truncated
        assert step == batch["steps"][row] and abs(total - batch["return"][row]) < 1e-6, (
            seed,
            total,
            batch["return"][row],
        )


# --------------------------------------------------------------------------------------------
# Policies
# --------------------------------------------------------------------------------------------


def random_policy(seeds):
    """Discrete(4) sampled from the action space seeded with ``action_seed(seed)``, per episode."""
    actions = np.array([seeding.np_random(action_seed(int(s)))[0].integers(4, size=MAX_STEPS) for s in seeds])
    return lambda obs, step, rows: actions[rows, step]


def always(action):
    return lambda obs, step, rows: np.full(len(obs), action)


def heuristic(obs, step, rows):
    return heuristic_actions(obs)


def threshold_policy(sleep_below, coffee_below, coffee_hypertension_below, beer_below, beer_hypertension_below):
    """Sleep below one alertness; else coffee below another while the hypertension is below a cap;
    else beer while the intoxication and the hypertension are below theirs; else do nothing."""

    def policy(obs, step, rows):
        alertness, hypertension, intoxication = obs[:, ALERTNESS], obs[:, HYPERTENSION], obs[:, INTOXICATION]
        actions = np.full(len(obs), DO_NOTHING)
        actions = np.where((intoxication < beer_below) & (hypertension < beer_hypertension_below), DRINK_BEER, actions)
        actions = np.where(
            (alertness < coffee_below) & (hypertension < coffee_hypertension_below), DRINK_COFFEE, actions
        )
        return np.where(alertness < sleep_below, SLEEP, actions)

    return policy


#: The search's ranges: sleep, coffee and cap thresholds; a beer threshold <= 0 means no beer.
SEARCH_RANGES = ((-0.5, 0.8), (0.0, 3.0), (0.0, 2.5), (-0.05, 0.14), (0.0, 2.5))


def search_thresholds(episodes: int, candidates: int = 300, rounds: int = 3, seed: int = 0):
    """The thresholds with the best mean return on seeds ``SEARCH_SEED ..``: random search, then
    coordinate refinement (each threshold in turn over a grid around the best, shrinking)."""
    seeds = np.arange(SEARCH_SEED, SEARCH_SEED + episodes)
    uniforms = episode_uniforms(seeds)

    def score(params):
        return play(threshold_policy(*params), seeds, uniforms)["return"].mean()

    rng = np.random.default_rng(seed)
    best = (0.4, 0.0, 0.0, -0.05, 0.0)  # the heuristic (hypertension is never below 0: no drinks)
    best_score = score(best)
    for _ in range(candidates):
        params = tuple(rng.uniform(low, high) for low, high in SEARCH_RANGES)
        value = score(params)
        if value > best_score:
            best, best_score = params, value
    for round_ in range(rounds):
        for i, (low, high) in enumerate(SEARCH_RANGES):
            width = (high - low) / (4 * 2**round_)
            for value in np.linspace(best[i] - width, best[i] + width, 9):
                params = best[:i] + (float(value),) + best[i + 1 :]
                candidate = score(params)
                if candidate > best_score:
                    best, best_score = params, candidate
    return best, best_score


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


def row(name: str, result: dict, base: dict | None) -> str:
    ret, drawn = result["return"], result["drawn_return"]
    text = (
        f"| {name} | {ret.mean():.2f} ± {ret.std(ddof=1):.2f} | {result['attacks'].mean():.3f} | "
        f"{result['steps'].mean():.1f} | {drawn.mean():.2f} ± {drawn.std(ddof=1):.2f} | "
    )
    if base is None:
        return text + "0 |"
    diff = ret - base["return"]
    return text + f"{diff.mean():+.2f} ± {diff.std(ddof=1) / np.sqrt(len(diff)):.2f} |"


HEADER = (
    "| policy | return (mean ± std) | attacks | steps | return, drawn attacks | paired vs heuristic (± s.e.) |\n"
    "|---|---|---|---|---|---|"
)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=1000, help="evaluation episodes, seeds 0 ..")
    parser.add_argument("--search-episodes", type=int, default=1000, help="search episodes, seeds 10,000 ..")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    seeds = np.arange(args.episodes)
    for policy in (random_policy(seeds[:5]), heuristic, threshold_policy(0.3, 2.0, 0.9, 0.06, 0.1)):
        check_against_the_env(policy, seeds[:5])
    best, best_score = search_thresholds(args.search_episodes)
    print(
        "best thresholds on the search seeds:",
        dict(zip(THRESHOLD_NAMES, np.round(best, 3).tolist())),
        f"(return {best_score:.2f} there)",
    )
    uniforms = episode_uniforms(seeds)
    base = play(heuristic, seeds, uniforms)
    print(HEADER)
    print(row("random", play(random_policy(seeds), seeds, uniforms), base))
    print(row("always sleep", play(always(SLEEP), seeds, uniforms), base))
    print(row("heuristic (sleep when alertness < 0.4)", base, None))
    print(row("best threshold policy", play(threshold_policy(*best), seeds, uniforms), base))
    print(f"{args.episodes} episodes per policy, {time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main()
