"""A recipe's settings for one id and agent, searched with Ray Tune on tuning episodes; the choice handed to the recipes.

    python gym-suite/analyses/tune_recipe.py --id push-v1 --agent sb3-ppo --trials 16 --seeds 3
    RAY_ADDRESS=10.0.0.5:6379 python gym-suite/analyses/tune_recipe.py --id target-v1 --agent jax-ppo --trials 32

A trial trains on seeds 100,000 onwards and is scored on tuning episodes seeded 100,000 onwards
(never the table's seeds, episodes or held-out log); the first trial is the recipe's own settings.
The best settings go to ``--out`` with how they were chosen (``docs/baselines.md``, "Tuning a recipe").
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
from gym_suite.training import connect_ray, recipes, runtime_env_from_json

TUNING_SEED = 100_000  # the first training seed and the first tuning episode's seed; the table: 0 .. 999
AGENTS = ("sb3-ppo", "jax-ppo")
#: The default search spaces: a list is a choice among its values; ``{"loguniform": [low, high]}``
#: and ``{"uniform": [low, high]}`` draw from that range. The keys are the agent's settings
#: (Stable-Baselines3 PPO's keywords; rejax PPO's settings of ``train_ppo``).
SPACES: dict[str, dict[str, Any]] = {
    agent: {
        "learning_rate": {"loguniform": [1e-4, 1e-3]},
        "gamma": [0.95, 0.99, 0.999, 1.0],
        "ent_coef": [0.0, 0.01],
        epochs: [5, 10],
    }
    for agent, epochs in (("sb3-ppo", "n_epochs"), ("jax-ppo", "num_epochs"))
}


def recipe(env_id: str, agent: str) -> tuple[dict[str, Any], int]:
    """The recipe's settings and budget of ``agent`` on ``env_id`` (the search's first trial)."""
    if agent == "sb3-ppo":
        return recipes.sb3_settings(env_id, "ppo"), recipes.recipe_budget(env_id, "sb3-ppo")
    from gym_suite.training.jax import ppo_budget, ppo_settings

    return ppo_settings(env_id), ppo_budget(env_id)


def trial(config: dict, env_id: str, agent: str, steps: int | None, seeds: int, episodes: int, tuned=None) -> None:
    """One Tune trial: train ``config`` over the recipe with the driver's tuned settings (``tuned``, handed
    over: the trial reads no file of the node it runs on), and report each training seed's greedy mean
    return on the tuning episodes (``returns``) and their mean (``score``)."""
    from ray import tune

    seed_list = list(range(TUNING_SEED, TUNING_SEED + seeds))
    with recipes.given_tuned_recipes(tuned or {}):
        if agent == "sb3-ppo":
            from gym_suite.training.sb3 import SB3Policy, train_sb3

            policies = [
                SB3Policy(train_sb3(env_id, "ppo", steps, seed=s, overrides=config), name=agent) for s in seed_list
            ]
        else:
            from gym_suite.training.jax import train_ppo

            kwargs = {"num_seeds": seeds, "total_timesteps": steps, "progress": False, "eval_episodes": 0}
            policies = list(train_ppo(env_id, seed=seed_list[0], **kwargs, **config).policies)
        # the env's default arguments: for push-v0 and push-v1, the training log (the table scores the test log)
        returns = [gym_suite.evaluate(env_id, p, episodes=episodes, seed=TUNING_SEED, n_jobs=1).mean for p in policies]
    tune.report({"score": float(np.mean(returns)), "returns": [float(r) for r in returns]})


def _ranges(spec: dict[str, Any]) -> dict[str, tuple[str, list]]:
    """``{key: (kind, values)}`` of a :data:`SPACES`-style description: ``("choice", values)`` or a
    range's ``(kind, [low, high])``; ``ValueError`` for any other form."""
    ranges = {}
    for key, value in spec.items():
        if isinstance(value, list) and value:
            ranges[key] = ("choice", value)
            continue
        if not (isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("loguniform", "uniform")):
            raise ValueError(
                f"--space: {key!r} must be a list of values or {{'loguniform': [low, high]}} or "
                f"{{'uniform': [low, high]}}, got {str(value)[:80]}"
            )
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
        ranges[key] = (kind, bounds)
    return ranges


def check_space(env_id: str, agent: str, spec: dict[str, Any]) -> dict[str, tuple[str, list]]:
    """``_ranges(spec)``; ``ValueError`` for a search space that names a setting ``agent`` does not have,
    or chooses the data an env replays (``gym_suite.training.recipes.check_recipe_settings``)."""
    rules = None
    if agent == "jax-ppo":
        from gym_suite.training.jax import SETTING_RULES as rules
    ranges = _ranges(spec)
    for key, (kind, values) in ranges.items():
        for one in values if kind == "choice" else values[:1]:
            recipes.check_recipe_settings(env_id, agent, {key: one}, "--space", rules)
    return ranges


def tune_recipe(
    env_id: str, agent: str, trials: int, seeds: int, episodes: int, steps: int | None = None,
    space: dict[str, Any] | None = None, address: str | None = None, cpus: float = 1, search_seed: int = 0,
    storage: str | os.PathLike | None = None, runtime_env: dict[str, Any] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Search ``agent``'s settings on ``env_id`` with Ray Tune; the best trial as a tuned-recipes entry."""
    import ray
    from ray import tune
    from ray.tune.search.basic_variant import BasicVariantGenerator

    spec = space if space is not None else SPACES[agent]
    ranges = check_space(env_id, agent, spec)
    tuned = recipes.tuned_entry(env_id, agent)  # the driver's tuned settings, handed to every trial
    settings, budget = recipe(env_id, agent)
    steps = budget if steps is None else steps
    own = {key: settings[key] for key in spec}
    connect_ray(address, runtime_env=runtime_env)
    most = max((node["Resources"].get("CPU", 0.0) for node in ray.nodes() if node.get("Alive")), default=0.0)
    if cpus > most:  # Tune would wait for a node that never comes
        raise ValueError(f"--cpus {cpus:g}: no node of the cluster has that many CPUs (the most a node has: {most:g})")
    if __name__ != "__main__":  # the trials' code travels with them (this script is not installed)
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    run = {"env_id": env_id, "agent": agent, "steps": steps, "seeds": seeds, "episodes": episodes, "tuned": tuned}
    param_space = {key: getattr(tune, kind)(*([v] if kind == "choice" else v)) for key, (kind, v) in ranges.items()}
    search = BasicVariantGenerator(points_to_evaluate=[own], random_state=search_seed)
    storage_path = str(Path(storage).resolve()) if storage else None
    results = tune.Tuner(
        tune.with_resources(tune.with_parameters(trial, **run), {"cpu": cpus}),
        param_space=param_space,
        tune_config=tune.TuneConfig(metric="score", mode="max", num_samples=trials, search_alg=search),
        run_config=tune.RunConfig(name=f"tune_recipe_{env_id}_{agent}", storage_path=storage_path, verbose=0),
    ).fit()
    errors = [str(r.error) for r in results if r.error is not None]
    if errors:
        raise RuntimeError(f"{len(errors)} of {trials} trials failed: {errors[0]}")
    rows = [(dict(r.config), r.metrics["score"], r.metrics["returns"]) for r in results]
    recipe_row = next(row for row in rows if row[0] == own)
    best = max(rows, key=lambda row: row[1])
    best = recipe_row if best[1] <= recipe_row[1] else best  # a tie keeps the recipe's own settings
    chosen = {
        "date": date.today().isoformat(), "score": best[1], "returns": best[2], "recipe_settings": own,
        "recipe_score": recipe_row[1], "trials": len(rows), "steps": steps,
        "training_seeds": [TUNING_SEED, TUNING_SEED + seeds - 1],
        "tuning_episodes": [TUNING_SEED, TUNING_SEED + episodes - 1], "space": spec, "search_seed": search_seed,
    }  # fmt: skip
    return {"settings": best[0], "tuned": chosen}


def write_entry(path: str | os.PathLike, env_id: str, agent: str, entry: dict[str, Any]) -> None:
    """Put ``entry`` in the tuned-recipes file ``path`` under ``env_id`` and ``agent``, keeping the rest."""
    path = Path(path)
    data = recipes.read_tuned_recipes(path)
    data.setdefault(env_id, {})[agent] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as f:  # written whole, then renamed over the file
        f.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(temporary, path)


def _argument(parse, check, message):
    """An argparse type: ``parse(text)``, refused with ``message(text, error)`` where it fails or
    ``check`` says no."""

    def convert(text: str):
        try:
            value = parse(text)
        except (ValueError, RecursionError) as exc:
            value = exc
        if isinstance(value, Exception) or not check(value):
            raise argparse.ArgumentTypeError(message(text, value))
        return value

    return convert


_positive_int = _argument(int, lambda v: v >= 1, lambda t, _: f"expected a positive integer, got {t!r}")
_cpus = _argument(
    float, lambda v: v > 0 and math.isfinite(v), lambda t, _: f"expected a positive number of CPUs, got {t!r}"
)
_space = _argument(
    json.loads,
    lambda v: isinstance(v, dict) and bool(v),
    lambda t, _: f"expected a JSON object of settings, e.g. '{{\"gamma\": [0.99, 1.0]}}', got {t[:80]!r}",
)
_runtime = _argument(runtime_env_from_json, lambda v: True, lambda _, error: str(error))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--id", required=True, choices=gym_suite.ENV_IDS, metavar="ID", help="the environment id")
    add("--agent", choices=AGENTS, default="sb3-ppo", help="the agent whose recipe is tuned")
    add("--trials", type=_positive_int, default=16, help="trials, the recipe's own first (default: 16)")
    add("--seeds", type=_positive_int, default=3, help="training seeds a trial (100,000 ..; default: 3)")
    add("--episodes", type=_positive_int, default=500, help="tuning episodes (100,000 ..; default: 500)")
    add("--steps", type=_positive_int, default=None, help="training steps a seed (default: the recipe's)")
    add("--space", type=_space, default=None, help="the search space as JSON (default: SPACES)")
    add("--search-seed", type=int, default=0, help="the random search's seed (default: 0)")
    add("--address", default=None, help="a Ray cluster (default: RAY_ADDRESS, else a new local Ray)")
    add("--cpus", type=_cpus, default=1.0, help="CPUs a trial asks for (default: 1)")
    runtime_help = 'Ray\'s runtime environment for the trials, as JSON (e.g. \'{"pip": ["gym-suite[sb3]"]}\')'
    add("--runtime-env", type=_runtime, default=None, metavar="JSON", help=runtime_help)
    add("--storage", default=None, help="Tune's results folder (default: Tune's, ~/ray_results)")
    add("--out", default=None, help=f"the tuned-recipes file to update (default: {recipes.tuned_recipes_path()})")
    args = parser.parse_args(argv)
    options = ("steps", "space", "address", "cpus", "search_seed", "storage", "runtime_env")
    try:
        entry = tune_recipe(
            args.id, args.agent, args.trials, args.seeds, args.episodes, **{k: getattr(args, k) for k in options}
        )
    except ValueError as exc:
        parser.error(str(exc))
    except ConnectionError as exc:
        print(f"tune_recipe.py: {exc}", file=sys.stderr)
        return 1
    entry["tuned"]["command"] = " ".join(["python gym-suite/analyses/tune_recipe.py", *sys.argv[1:]])
    out = Path(args.out) if args.out else recipes.tuned_recipes_path()
    write_entry(out, args.id, args.agent, entry)
    tuned = entry["tuned"]
    print(
        f"{args.id} {args.agent}: best {tuned['score']:.4g} (the recipe's own settings: {tuned['recipe_score']:.4g}) "
        f"over {tuned['trials']} trials; settings {json.dumps(entry['settings'])} written to {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
