"""PPO in JAX (rejax, compiled end to end) against Stable-Baselines3 PPO on one id, side by side in one run.

::

    # the figures and the picture of docs/training-speed.md (34 min on 2 busy cores):
    OMP_NUM_THREADS=1 python gym-suite/benchmarks/train_jax_vs_sb3.py heartpole-v1 --seeds 3 --jax-seeds 8 \\
        --png docs/img/learning_curve_heartpole_v1.png --json docs/training/heartpole_v1_jax_vs_sb3.json
    python gym-suite/benchmarks/train_jax_vs_sb3.py example-v0 --timesteps 20000 --target 8
    python gym-suite/benchmarks/train_jax_vs_sb3.py heartpole-v1 --skip-sb3      # the JAX side alone
    python gym-suite/benchmarks/train_jax_vs_sb3.py --from-json docs/training/heartpole_v1_jax_vs_sb3.json --png out.png

Trains, for one id, each side for its recipe's budget of environment steps (``--timesteps``: the
same for both; JAX: ``gym_suite.training.jax.ppo_budget``, SB3: the SB3 PPO budget of
``gym_suite.training.recipes``), seeds ``--seed`` .. ``--seed + --seeds - 1`` on each side, one
after the other, the order alternating from seed to seed so that the load of other processes
hits both alike:

- JAX PPO: ``gym_suite.training.jax.train_ppo(id, seed=s)``, the call a user makes (its
  recipe, its in-training evaluations included in the time), keeping the policy at each of its
  evaluation points; timed from the start of compiling to the end of training;
- Stable-Baselines3 PPO on the id's native vector env (``train_sb3``: ``SuiteVecEnv``, one torch
  thread). Its settings are the id's recipe (heartpole-v1's as JAX PPO's: no discounting and the
  two weeks' end terminal), except where :data:`SB3_RECIPES` has others (none now;
  ``--sb3-recipe-only`` takes the recipe as it is). A callback
  evaluates the greedy policy at the rollout boundaries next to JAX's evaluation points, the
  clock stopped while it does;
- with ``--jax-seeds K`` (K > 1), also K JAX seeds in one vmapped run;
- every JAX run compiles afresh, a cold start each (``GYM_SUITE_JAX_CACHE=off`` for the run: JAX's
  persistent compilation cache neither read nor written), unless ``--jax-cache DIR`` names a cache
  directory (a run then loads what an earlier one with the same settings compiled, as a user's
  second run does).

The learning curves score every checkpoint of both sides on the same ``--curve-episodes``
seeded episodes of the numpy env (seeds 10,000, 10,001, ...; ``gym_suite.evaluate``, greedy);
the final policies are scored on ``--episodes`` seeded episodes (seeds 0, 1, ...; push-v0 on
its held-out test log). Printed: the wall time of each run (JAX: compile and run apart), the
final greedy return, the time and steps at which the curve first reaches ``--target`` (default:
450 for heartpole-v1), the load average before and after, and the ratios of SB3's wall time to
JAX's, over the whole budget and to the target (medians over the seeds). ``--png`` draws the
curves against environment steps and against wall-clock seconds, seeds as a band (min to max)
around their mean; ``--json`` keeps every figure. With small budgets the compile time dominates
and JAX does not win; the table shows it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from _machine import cpu_name, load_average, missing  # this folder's helpers (the script's folder is on sys.path)

import gym_suite
from gym_suite import _jax_cache as jax_cache
from gym_suite.cli import key_value, non_negative_int, positive_int
from gym_suite.quiet import import_gym_quietly, no_version_notice

COMMAND = "python gym-suite/benchmarks/train_jax_vs_sb3.py"
CURVE_SEED = 10_000  # the curve's episodes: seeds 10,000, 10,001, ... for both sides
#: The return each id's curves are timed to by default (None: no target).
TARGETS = {"heartpole-v1": 450.0}
#: Stable-Baselines3 PPO settings over an id's recipe, and whether truncation is terminal for the
#: learner (None: the recipe's ``truncation_is_terminal``). Empty: heartpole-v1's recipe itself now
#: has gym-suite/analyses/heartpole_v1_ppo.py's gamma 1 with the two weeks' end terminal, as JAX PPO.
SB3_RECIPES: dict[str, tuple[dict, bool | None]] = {}


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _sb3_curve_callback(record: dict, evaluate_model, steps_to_evaluate: list[int]):
    """Evaluates at the first rollout boundary at or past each of ``steps_to_evaluate`` and at the
    end; ``record["points"]`` gets ``{"steps", "seconds", "mean"}``, the seconds of training with
    the evaluations left out."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Curve(BaseCallback):
        def __init__(self):
            super().__init__()
            self.pending = sorted(steps_to_evaluate)
            self.eval_seconds = 0.0
            self.started = 0.0

        def _evaluate(self) -> None:
            start = time.perf_counter()
            mean = evaluate_model(self.model)
            self.eval_seconds += time.perf_counter() - start
            record["points"].append({"steps": int(self.model.num_timesteps), "seconds": self._seconds(), "mean": mean})
            while self.pending and self.pending[0] <= self.model.num_timesteps:
                self.pending.pop(0)

        def _seconds(self) -> float:
            return time.perf_counter() - self.started - self.eval_seconds

        def _on_training_start(self) -> None:
            self.started = time.perf_counter()
            self._evaluate()

        def _on_rollout_start(self) -> None:
            if self.pending and self.model.num_timesteps >= self.pending[0]:
                self._evaluate()

        def _on_step(self) -> bool:
            return True

        def _on_training_end(self) -> None:
            record["wall"] = self._seconds()
            record["steps"] = int(self.model.num_timesteps)
            if not record["points"] or record["points"][-1]["steps"] != self.model.num_timesteps:
                self._evaluate()

    return Curve()


def first_reached(points: list[dict], target: float | None) -> dict | None:
    if target is None:
        return None
    return next((p for p in points if p["mean"] >= target), None)


def _median(values: list[float]) -> float:
    values = [v for v in values if v is not None and np.isfinite(v)]
    return statistics.median(values) if values else float("nan")


def run(args) -> dict:
    from gym_suite.training.jax import _schedule, ppo_budget, ppo_settings, train_ppo
    from gym_suite.training.recipes import recipe_budget, recipe_for

    budget = args.timesteps or recipe_budget(args.id, "sb3-ppo")
    jax_budget = args.timesteps or ppo_budget(args.id)
    env_kwargs = recipe_for(args.id).eval_env_kwargs or None
    target = args.target if args.target is not None else TARGETS.get(args.id)
    sb3_overrides, sb3_terminal = ({}, None) if args.sb3_recipe_only else SB3_RECIPES.get(args.id, ({}, None))
    if sb3_terminal is None:
        sb3_terminal = recipe_for(args.id).truncation_is_terminal.get("ppo", False)
    sb3_overrides = {**sb3_overrides, **dict(args.sb3)}
    seeds = list(range(args.seed, args.seed + args.seeds))
    # SB3 is evaluated at the rollout boundaries next to JAX's evaluation points
    settings = ppo_settings(args.id)
    every, _ = _schedule(jax_budget, settings["num_envs"] * settings["num_steps"], settings["eval_points"])
    curve_steps = list(range(0, budget + every, every))

    def curve_mean(policy) -> float:
        result = gym_suite.evaluate(
            args.id, policy, episodes=args.curve_episodes, seed=CURVE_SEED, env_kwargs=env_kwargs, progress=False
        )
        return float(result.mean)

    def final_score(policy) -> tuple[float, float]:
        result = gym_suite.evaluate(args.id, policy, episodes=args.episodes, env_kwargs=env_kwargs, progress=False)
        return float(result.mean), float(result.std)

    out: dict = {
        "id": args.id,
        "budget": budget,
        "jax_budget": jax_budget,
        "target": target,
        "seeds": seeds,
        "episodes": args.episodes,
        "curve_episodes": args.curve_episodes,
        "sb3_overrides": sb3_overrides,
        "sb3_truncation_is_terminal": sb3_terminal,
        "load_start": load_average(),
        "jax": [],
        "sb3": [],
    }
    started = time.perf_counter()
    jax_policies: dict[int, tuple] = {}
    with no_version_notice():
        for k, seed in enumerate(seeds):
            order = ("jax", "sb3") if k % 2 == 0 else ("sb3", "jax")
            for side in order:
                if side == "jax":
                    result = train_ppo(args.id, seed=seed, total_timesteps=jax_budget, keep_checkpoints=True)
                    jax_policies[seed] = (result.policy, [c[0] for c in result.checkpoints])
                    out["jax"].append(
                        {
                            "seed": seed,
                            "steps": result.timesteps,
                            "compile": result.compile_seconds,
                            "train": result.train_seconds,
                            "wall": result.seconds,
                            "points": [
                                {"steps": int(s), "seconds": result.compile_seconds + float(t)}
                                for s, t in zip(result.steps, result.curve_seconds)
                            ],
                            "settings": {
                                key: value
                                for key, value in result.settings.items()
                                if isinstance(value, (int, float, str, bool, dict))
                            },
                        }
                    )
                    _log(f"JAX PPO seed {seed}: {result.seconds:.1f} s (load {load_average()})")
                elif not args.skip_sb3:
                    import_gym_quietly()
                    from gym_suite.training.sb3 import SB3Policy, train_sb3

                    record: dict = {"seed": seed, "points": []}
                    callback = _sb3_curve_callback(
                        record, lambda model: curve_mean(SB3Policy(model, name="sb3-ppo")), curve_steps
                    )
                    model = train_sb3(
                        args.id,
                        "ppo",
                        steps=budget,
                        seed=seed,
                        callback=callback,
                        overrides=sb3_overrides,
                        truncation_is_terminal=sb3_terminal,
                    )
                    record["final"] = final_score(SB3Policy(model, name="sb3-ppo"))
                    out["sb3"].append(record)
                    _log(
                        f"SB3 PPO seed {seed}: {record['wall']:.1f} s, return {record['final'][0]:.2f} (load {load_average()})"
                    )
        out["load_after_training"] = load_average()
        for entry in out["jax"]:
            final, checkpoints = jax_policies[entry["seed"]]
            entry["final"] = final_score(final)
            for point, policy in zip(entry["points"], checkpoints):
                point["mean"] = curve_mean(policy)
        if args.jax_seeds > 1:
            many = train_ppo(args.id, seed=args.seed, num_seeds=args.jax_seeds, total_timesteps=jax_budget)
            out["jax_vmapped"] = {
                "seeds": many.seeds,
                "steps": many.timesteps,
                "compile": many.compile_seconds,
                "train": many.train_seconds,
                "wall": many.seconds,
                "load": load_average(),
                "finals": [final_score(p)[0] for p in many.policies],
            }
    out["load_end"] = load_average()
    out["wall_seconds"] = time.perf_counter() - started
    out["date"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    out["machine"] = f"{cpu_name()} ({os.cpu_count()} cores), Python {platform.python_version()}"
    return out


def report(out: dict) -> str:
    target = out["target"]
    lines = [
        f"{out['id']}: {out.get('jax_budget', out['budget']):,} env steps for JAX, {out['budget']:,} for SB3, "
        f"seeds {', '.join(map(str, out['seeds']))}; final greedy "
        f"return on {out['episodes']:,} seeded episodes of the numpy env, curves on {out['curve_episodes']} "
        f"(seeds {CURVE_SEED:,} on).",
        f"Measured {out['date']} on {out['machine']}; load average {out['load_start']} at the start, "
        f"{out.get('load_after_training', '?')} after the training runs, {out['load_end']} at the end "
        f"(took {out['wall_seconds'] / 60:.1f} min). Command: {out.get('command', COMMAND)}",
    ]
    cache = out.get("jax_cache")
    if cache is not None:
        lines.append(
            "JAX: every run compiled afresh (no compilation cache)."
            if cache.lower() in jax_cache.OFF
            else f"JAX: compilation cache {cache} (a run loads what an earlier one compiled)."
        )
    if out["sb3"]:
        terminal = ", the two weeks' end terminal" if out["sb3_truncation_is_terminal"] else ""
        lines.append(f"SB3 PPO: the id's recipe with {out['sb3_overrides'] or 'nothing'} over it{terminal}.")
    lines += [
        "",
        f"| agent | seed | steps | compile (s) | train (s) | wall (s) | return | to {target} (s) | to {target} (steps) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, side in (("JAX PPO (rejax)", "jax"), ("SB3 PPO (SuiteVecEnv)", "sb3")):
        for entry in out[side]:
            reached = first_reached(entry["points"], target)
            to_s = f"{reached['seconds']:.1f}" if reached else "not reached"
            to_steps = f"{reached['steps']:,}" if reached else "-"
            compile_s = f"{entry['compile']:.1f}" if side == "jax" else "-"
            train_s = entry["train"] if side == "jax" else entry["wall"]
            mean, std = entry["final"]
            lines.append(
                f"| {name} | {entry['seed']} | {entry['steps']:,} | {compile_s} | {train_s:.1f} | {entry['wall']:.1f} "
                f"| {mean:.2f} ± {std:.2f} | {to_s} | {to_steps} |"
            )
    many = out.get("jax_vmapped")
    if many:
        lines.append(
            f"| JAX PPO, {len(many['seeds'])} seeds vmapped | {many['seeds'][0]}-{many['seeds'][-1]} | "
            f"{many['steps']:,} | {many['compile']:.1f} | {many['train']:.1f} | {many['wall']:.1f} | "
            f"{min(many['finals']):.2f} to {max(many['finals']):.2f} | | |"
        )
    if out["sb3"] and out["jax"]:
        jax_wall = _median([e["wall"] for e in out["jax"]])
        sb3_wall = _median([e["wall"] for e in out["sb3"]])

        def to_target(side):
            reached = [first_reached(e["points"], target) for e in out[side]]
            return _median([r["seconds"] if r else None for r in reached]), sum(r is not None for r in reached)

        jax_to, jax_n = to_target("jax")
        sb3_to, sb3_n = to_target("sb3")
        lines += [
            "",
            f"Medians over the seeds: wall time of the whole budget JAX {jax_wall:.1f} s, SB3 {sb3_wall:.1f} s: "
            f"SB3 / JAX = {sb3_wall / jax_wall:.1f}x.",
        ]
        if target is not None:
            lines.append(
                f"Time to a curve return >= {target:g}: JAX {jax_to:.1f} s ({jax_n}/{len(out['jax'])} seeds), "
                f"SB3 {sb3_to:.1f} s ({sb3_n}/{len(out['sb3'])} seeds): SB3 / JAX = {sb3_to / jax_to:.1f}x."
            )
        if many:
            lines.append(
                f"{len(many['seeds'])} JAX seeds in one vmapped run: {many['wall']:.1f} s "
                f"({many['wall'] / len(many['seeds']):.1f} s a seed; load {many['load']})."
            )
    return "\n".join(lines) + "\n"


def plot(out: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), sharey=True)
    sides = [("jax", "JAX PPO (rejax)", "tab:blue"), ("sb3", "SB3 PPO (SuiteVecEnv)", "tab:orange")]
    for side, label, color in sides:
        runs = out[side]
        if not runs:
            continue
        n = min(len(r["points"]) for r in runs)
        means = np.array([[p["mean"] for p in r["points"][:n]] for r in runs])
        for ax, key in zip(axes, ("steps", "seconds")):
            x = np.array([[p[key] for p in r["points"][:n]] for r in runs]).mean(axis=0)
            ax.plot(x, means.mean(axis=0), color=color, label=f"{label}, {len(runs)} seeds")
            ax.fill_between(x, means.min(axis=0), means.max(axis=0), color=color, alpha=0.25, linewidth=0)
    target = out["target"]
    for ax in axes:
        if target is not None:
            ax.axhline(target, color="grey", linestyle="--", linewidth=1, label=f"return {target:g}")
        ax.grid(alpha=0.3)
    low = min(p["mean"] for side in ("jax", "sb3") for r in out[side] for p in r["points"][1:])
    high = max(p["mean"] for side in ("jax", "sb3") for r in out[side] for p in r["points"])
    lowest = min(p["mean"] for side in ("jax", "sb3") for r in out[side] for p in r["points"])
    bottom = max(low, (target or high) - 250) - 10
    axes[0].set_ylim(bottom, high + 10)
    if lowest < bottom:  # the axis starts above the first points: say so on the figure
        for ax in axes:
            ax.text(
                0.98,
                0.55,
                f"axis cut at {bottom:.0f}: the earliest points\nlie below it (lowest {lowest:,.0f})",
                transform=ax.transAxes,
                fontsize=8,
                color="dimgrey",
                ha="right",
                va="center",
            )
    axes[0].set_xlabel("environment steps")
    axes[1].set_xlabel("wall-clock seconds (JAX: compiling included; SB3: evaluations left out)")
    axes[0].set_ylabel(f"greedy return, {out['curve_episodes']} seeded episodes of the numpy env")
    axes[1].set_xlim(left=0)
    axes[0].legend(loc="lower right")
    fig.suptitle(
        f"PPO on {out['id']}: JAX (rejax) vs Stable-Baselines3, mean and min-max of the seeds; "
        f"{out['machine']}, load {out['load_start']} to {out['load_end']}",
        fontsize=9,
    )
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("id", nargs="?", default="heartpole-v1", choices=gym_suite.ENV_IDS)
    parser.add_argument(
        "--timesteps",
        type=positive_int,
        default=None,
        help="env steps per run, both sides (default: each side's recipe budget)",
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first seed")
    parser.add_argument("--seeds", type=positive_int, default=1, help="seeds per side, one run each")
    parser.add_argument(
        "--jax-seeds", type=positive_int, default=1, help="also train this many JAX seeds in one vmapped run (1: not)"
    )
    parser.add_argument("--episodes", type=positive_int, default=1000, help="evaluation episodes of a final policy")
    parser.add_argument("--curve-episodes", type=positive_int, default=100, help="evaluation episodes of a curve point")
    parser.add_argument("--target", type=float, default=None, help="the return the curves are timed to")
    parser.add_argument("--skip-sb3", action="store_true", help="train the JAX side only")
    parser.add_argument("--sb3-recipe-only", action="store_true", help="SB3 PPO with the id's recipe as it is")
    parser.add_argument(
        "--sb3", nargs="+", type=key_value, default=[], metavar="KEY=VALUE", help="SB3 PPO settings over the recipe's"
    )
    parser.add_argument(
        "--jax-cache",
        metavar="DIR",
        default="off",
        help="JAX's compilation cache for the JAX runs (default: off, every run compiles afresh)",
    )
    parser.add_argument("--png", metavar="PATH", help="draw the learning curves to this PNG")
    parser.add_argument("--json", metavar="PATH", help="save every figure as JSON")
    parser.add_argument("--from-json", metavar="PATH", help="print (and --png draw) a saved run instead of training")
    args = parser.parse_args(argv)
    # every package the run needs, asked before it trains: a run is not lost to one missing at its end
    needed = (["matplotlib"] if args.png else []) + (
        [] if args.from_json else ["jax", "rejax", "gymnax"] + ([] if args.skip_sb3 else ["stable_baselines3", "torch"])
    )
    if missing(needed):
        parser.error(f"not installed: {', '.join(missing(needed))} (the jax and sb3 extras; --png: matplotlib)")
    if args.from_json:
        out = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
    else:
        if "gym_suite.jax" in sys.modules:  # the cache is set when gym_suite.jax is first imported
            parser.error("gym_suite.jax was imported before the run: --jax-cache could not take effect")
        os.environ[jax_cache.ENV_VAR] = args.jax_cache
        out = run(args)
        out["jax_cache"] = args.jax_cache
        out["command"] = " ".join([COMMAND, *(argv if argv is not None else sys.argv[1:])]).strip()
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(report(out))
    if args.png:
        plot(out, args.png)
        print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
