"""A recipe's settings for one id and agent, searched with Ray Tune on tuning episodes; the choice handed to the recipes.

    python gym-suite/analyses/tune_recipe.py --id push-v1 --agent sb3-ppo --trials 16 --seeds 3
    RAY_ADDRESS=10.0.0.5:6379 python gym-suite/analyses/tune_recipe.py --id target-v1 --agent jax-ppo --trials 32
    python gym-suite/analyses/tune_recipe.py --id example-v0 --agent sb3-ppo --trials 4 --steps 4096 --out /tmp/t.json

Protocol. The baselines table (``gym-suite/benchmarks/baselines.py``) reports evaluation episodes
0 .. 999 (episode ``i`` reset with seed ``i``) and trains on seeds 0, 1, ... This search never
looks at either: every trial trains ``--seeds`` agents on the training seeds 100,000, 100,001, ...
with its settings over the id's recipe, for ``--steps`` environment steps (default: the recipe's
budget), and scores each greedily on ``--episodes`` tuning episodes reset with seeds 100,000,
100,001, ...; where an id replays data (push-v0, push-v1) it plays the training log, never the
held-out test log the table reports. A trial's score is the mean over its training seeds of their
mean returns. The first trial is the recipe's own settings, so the search reports how much it
gained over them; the others are drawn from the search space (``--space``, default
:data:`SPACES`) by Tune's random search (``--search-seed``), ``--trials`` in all.

Every trial is a Ray Tune trial, on a new local Ray by default or on the cluster of ``--address``
(or ``RAY_ADDRESS``), asking for ``--cpus`` CPUs. The best trial's settings are written to
``--out`` (default: the file the recipes read, ``gym_suite/training/tuned_recipes.json``, or the
file of the environment variable ``GYM_SUITE_TUNED_RECIPES``) as ``{id: {agent: {"settings": {...},
"tuned": {...}}}}``, beside what the file held for other ids and agents: the recipes take those
settings over their own (``gym_suite.training.recipes.recipe_for``; JAX PPO's
``gym_suite.training.jax.ppo_settings``), and the baselines table leaves out the runs made before
that date (they trained with the earlier recipe). ``"tuned"`` records how they were chosen: the
date, the scores of the best trial and of the recipe's own settings, the trials, seeds, episodes
and the command.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

import gym_suite
from gym_suite.training import connect_ray
from gym_suite.training.recipes import (
    check_recipe_settings,
    given_tuned_recipes,
    read_tuned_recipes,
    tuned_entry,
    tuned_recipes_path,
)

TUNING_SEED = 100_000  # the first training seed and the first tuning episode's seed; the table: 0 .. 999
AGENTS = ("sb3-ppo", "jax-ppo")
#: The default search spaces: a list is a choice among its values; ``{"loguniform": [low, high]}``
#: and ``{"uniform": [low, high]}`` draw from that range. The keys are the agent's settings
#: (Stable-Baselines3 PPO's keywords; rejax PPO's settings of ``train_ppo``).
SPACES: dict[str, dict[str, Any]] = {
    "sb3-ppo": {
        "learning_rate": {"loguniform": [1e-4, 1e-3]},
        "gamma": [0.95, 0.99, 0.999, 1.0],
        "ent_coef": [0.0, 0.01],
        "n_epochs": [5, 10],
    },
    "jax-ppo": {
        "learning_rate": {"loguniform": [1e-4, 1e-3]},
        "gamma": [0.95, 0.99, 0.999, 1.0],
        "ent_coef": [0.0, 0.01],
        "num_epochs": [5, 10],
    },
}


def recipe_settings(env_id: str, agent: str, keys: list[str]) -> dict[str, Any]:
    """The recipe's current values of ``keys`` (the search's first trial)."""
    if agent == "sb3-ppo":
        from gym_suite.training.recipes import sb3_settings

        settings = sb3_settings(env_id, "ppo")
    else:
        from gym_suite.training.jax import ppo_settings

        settings = ppo_settings(env_id)
    return {key: settings[key] for key in keys}


def score(
    env_id: str, agent: str, settings: dict[str, Any], steps: int | None, seeds: int, episodes: int
) -> list[float]:
    """Each training seed's greedy mean return on the tuning episodes, with ``settings`` over the recipe."""
    seed_list = list(range(TUNING_SEED, TUNING_SEED + seeds))
    if agent == "sb3-ppo":
        from gym_suite.training.sb3 import SB3Policy, train_sb3

        policies = [
            SB3Policy(train_sb3(env_id, "ppo", steps, seed=seed, overrides=settings), name=agent) for seed in seed_list
        ]
    else:
        from gym_suite.training.jax import train_ppo

        result = train_ppo(
            env_id,
            seed=seed_list[0],
            num_seeds=seeds,
            total_timesteps=steps,
            progress=False,
            eval_episodes=0,
            **settings,
        )
        policies = list(result.policies)
    # the env's default arguments: for push-v0 and push-v1, the training log (the table scores the test log)
    return [float(gym_suite.evaluate(env_id, p, episodes=episodes, seed=TUNING_SEED, n_jobs=1).mean) for p in policies]


def trial(
    config: dict[str, Any],
    env_id: str,
    agent: str,
    steps: int | None,
    seeds: int,
    episodes: int,
    tuned: dict[str, Any] | None = None,
) -> None:
    """One Tune trial: train and score ``config`` over the recipe with the driver's tuned settings
    (``tuned``, handed over: the trial reads no file of the node it runs on), and report its score."""
    from ray import tune

    with given_tuned_recipes(tuned or {}):
        returns = score(env_id, agent, config, steps, seeds, episodes)
    tune.report({"score": float(np.mean(returns)), "returns": returns})


def check_space(env_id: str, agent: str, spec: dict[str, Any]) -> None:
    """``ValueError`` for a search space (:data:`SPACES`' form) that names a setting ``agent`` does not
    have, or chooses the data an env replays (``gym_suite.training.recipes.check_recipe_settings``)."""
    first = {}
    for key, value in spec.items():
        if isinstance(value, list) and value:
            first[key] = value[0]
        elif isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("loguniform", "uniform"):
            kind, bounds = next(iter(value.items()))
            numbers = isinstance(bounds, list) and len(bounds) == 2
            numbers = numbers and all(
                isinstance(b, (int, float)) and not isinstance(b, bool) and math.isfinite(b) for b in bounds
            )
            if not numbers or not (0 if kind == "loguniform" else -math.inf) < bounds[0] < bounds[1]:
                raise ValueError(
                    f"--space: {key!r}: {kind} needs [low, high] with low < high"
                    + (" and low > 0" if kind == "loguniform" else "")
                    + f", got {str(bounds)[:80]}"
                )
            first[key] = bounds[0]
        else:
            raise ValueError(
                f"--space: {key!r} must be a list of values or {{'loguniform': [low, high]}} or "
                f"{{'uniform': [low, high]}}, got {str(value)[:80]}"
            )
        values = value if isinstance(value, list) else [first[key]]
        rules = None
        if agent == "jax-ppo":
            from gym_suite.training.jax import SETTING_RULES as rules
        for one in values:
            check_recipe_settings(env_id, agent, {key: one}, "--space", rules)


def search_space(spec: dict[str, Any]) -> dict[str, Any]:
    """Tune's search space of a :data:`SPACES`-style description."""
    from ray import tune

    space: dict[str, Any] = {}
    for key, value in spec.items():
        if isinstance(value, list) and value:
            space[key] = tune.choice(value)
        elif isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("loguniform", "uniform"):
            kind, bounds = next(iter(value.items()))
            space[key] = getattr(tune, kind)(*bounds)
        else:
            raise ValueError(
                f"--space: {key!r} must be a list of values or {{'loguniform': [low, high]}} or "
                f"{{'uniform': [low, high]}}, got {value!r}"
            )
    return space


def tune_recipe(
    env_id: str,
    agent: str,
    trials: int,
    seeds: int,
    episodes: int,
    steps: int | None = None,
    space: dict[str, Any] | None = None,
    address: str | None = None,
    cpus: float = 1,
    search_seed: int = 0,
    storage: str | os.PathLike | None = None,
    runtime_env: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Search ``agent``'s settings on ``env_id`` with Ray Tune; the best trial as a tuned-recipes entry."""
    import ray
    from ray import tune
    from ray.tune.search.basic_variant import BasicVariantGenerator

    spec = space if space is not None else SPACES[agent]
    check_space(env_id, agent, spec)
    tuned = tuned_entry(env_id, agent)  # the driver's tuned settings, handed to every trial
    if steps is None:  # the recipe's budget
        if agent == "sb3-ppo":
            from gym_suite.training.recipes import recipe_budget

            steps = recipe_budget(env_id, "sb3-ppo")
        else:
            from gym_suite.training.jax import ppo_budget

            steps = ppo_budget(env_id)
    param_space = search_space(spec)
    own = recipe_settings(env_id, agent, list(spec))
    connect_ray(address, runtime_env=runtime_env)
    most = max((node["Resources"].get("CPU", 0.0) for node in ray.nodes() if node.get("Alive")), default=0.0)
    if cpus > most:  # Tune would wait for a node that never comes
        raise ValueError(f"--cpus {cpus:g}: no node of the cluster has that many CPUs (the most a node has: {most:g})")
    if __name__ != "__main__":  # the trials' code travels with them (this script is not installed)
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    trainable = tune.with_resources(
        tune.with_parameters(
            trial, env_id=env_id, agent=agent, steps=steps, seeds=seeds, episodes=episodes, tuned=tuned
        ),
        {"cpu": cpus},
    )
    tuner = tune.Tuner(
        trainable,
        param_space=param_space,
        tune_config=tune.TuneConfig(
            metric="score",
            mode="max",
            num_samples=trials,
            search_alg=BasicVariantGenerator(points_to_evaluate=[own], random_state=search_seed),
        ),
        run_config=tune.RunConfig(
            name=f"tune_recipe_{env_id}_{agent}",
            storage_path=str(Path(storage).resolve()) if storage else None,
            verbose=0,
        ),
    )
    results = tuner.fit()
    errors = [str(r.error) for r in results if r.error is not None]
    if errors:
        raise RuntimeError(f"{len(errors)} of {trials} trials failed: {errors[0]}")
    rows = [(dict(r.config), r.metrics["score"], r.metrics["returns"]) for r in results]
    recipe_row = next(row for row in rows if row[0] == own)
    best = max(rows, key=lambda row: row[1])
    if best[1] <= recipe_row[1]:  # a tie keeps the recipe's own settings
        best = recipe_row
    return {
        "settings": best[0],
        "tuned": {
            "date": date.today().isoformat(),
            "score": best[1],
            "returns": best[2],
            "recipe_settings": own,
            "recipe_score": recipe_row[1],
            "trials": len(rows),
            "steps": steps,
            "training_seeds": [TUNING_SEED, TUNING_SEED + seeds - 1],
            "tuning_episodes": [TUNING_SEED, TUNING_SEED + episodes - 1],
            "space": spec,
            "search_seed": search_seed,
        },
    }


def write_entry(path: str | os.PathLike, env_id: str, agent: str, entry: dict[str, Any]) -> None:
    """Put ``entry`` in the tuned-recipes file ``path`` under ``env_id`` and ``agent``, keeping the rest."""
    path = Path(path)
    data = read_tuned_recipes(path)
    data.setdefault(env_id, {})[agent] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as f:  # written whole, then renamed over the file
        f.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(temporary, path)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _cpus(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive number of CPUs, got {text!r}")
    return value


def _runtime_env(text: str) -> dict[str, Any]:
    """``--runtime-env``: Ray's runtime environment as JSON (:func:`gym_suite.training.runtime_env_from_json`)."""
    from gym_suite.training import runtime_env_from_json

    try:
        return runtime_env_from_json(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _space(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict) or not value:
        raise argparse.ArgumentTypeError(
            f"expected a JSON object of settings, e.g. '{{\"gamma\": [0.99, 1.0]}}', got {text[:80]!r}"
        )
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--id", required=True, choices=gym_suite.ENV_IDS, metavar="ID", help="the environment id")
    parser.add_argument("--agent", choices=AGENTS, default="sb3-ppo", help="the agent whose recipe is tuned")
    parser.add_argument("--trials", type=_positive_int, default=16, help="trials, the recipe's own first (default: 16)")
    parser.add_argument(
        "--seeds", type=_positive_int, default=3, help="training seeds a trial (100,000 ..; default: 3)"
    )
    parser.add_argument(
        "--episodes", type=_positive_int, default=500, help="tuning episodes (100,000 ..; default: 500)"
    )
    parser.add_argument(
        "--steps", type=_positive_int, default=None, help="training steps a seed (default: the recipe's)"
    )
    parser.add_argument("--space", type=_space, default=None, help="the search space as JSON (default: SPACES)")
    parser.add_argument("--search-seed", type=int, default=0, help="the random search's seed (default: 0)")
    parser.add_argument("--address", default=None, help="a Ray cluster (default: RAY_ADDRESS, else a new local Ray)")
    parser.add_argument("--cpus", type=_cpus, default=1.0, help="CPUs a trial asks for (default: 1)")
    parser.add_argument(
        "--runtime-env",
        type=_runtime_env,
        default=None,
        metavar="JSON",
        help='Ray\'s runtime environment for the trials, as JSON (e.g. \'{"pip": ["gym-suite[sb3]"]}\')',
    )
    parser.add_argument("--storage", default=None, help="Tune's results folder (default: Tune's, ~/ray_results)")
    parser.add_argument(
        "--out", default=None, help=f"the tuned-recipes file to update (default: {tuned_recipes_path()})"
    )
    args = parser.parse_args(argv)
    try:
        entry = tune_recipe(
            args.id,
            args.agent,
            args.trials,
            args.seeds,
            args.episodes,
            steps=args.steps,
            space=args.space,
            address=args.address,
            cpus=args.cpus,
            search_seed=args.search_seed,
            storage=args.storage,
            runtime_env=args.runtime_env,
        )
    except ValueError as exc:
        parser.error(str(exc))
    except ConnectionError as exc:
        print(f"tune_recipe.py: {exc}", file=sys.stderr)
        return 1
    entry["tuned"]["command"] = " ".join(["python gym-suite/analyses/tune_recipe.py", *sys.argv[1:]])
    out = Path(args.out) if args.out else tuned_recipes_path()
    write_entry(out, args.id, args.agent, entry)
    tuned = entry["tuned"]
    print(
        f"{args.id} {args.agent}: best {tuned['score']:.4g} (the recipe's own settings: {tuned['recipe_score']:.4g}) "
        f"over {tuned['trials']} trials; settings {json.dumps(entry['settings'])} written to {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
