"""PPO in JAX (rejax, compiled end to end) against Stable-Baselines3 PPO on one id, side by side in one run.

    # the figures and the picture of docs/training-speed.md:
    OMP_NUM_THREADS=1 python gym-suite/benchmarks/train_jax_vs_sb3.py heartpole-v1 --seeds 3 --jax-seeds 8 \
        --png docs/img/learning_curve_heartpole_v1.png --json docs/training/heartpole_v1_jax_vs_sb3.json
    python gym-suite/benchmarks/train_jax_vs_sb3.py --from-json docs/training/heartpole_v1_jax_vs_sb3.json --png out.png

The sides alternate seed by seed; JAX PPO is timed from the start of compiling, SB3 PPO evaluated at
JAX's evaluation points with the clock stopped, every checkpoint scored on the same seeded episodes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from _machine import cpu_name, load_average, missing  # this folder's helpers (the script's folder is on sys.path)
from _sb3_curve import first_reached
from _sb3_curve import median as _median

import gym_suite
from gym_suite import _jax_cache as jax_cache
from gym_suite.cli import key_value, non_negative_int, positive_int
from gym_suite.quiet import import_gym_quietly, no_version_notice

COMMAND = "python gym-suite/benchmarks/train_jax_vs_sb3.py"
CURVE_SEED = 10_000  # the curve's episodes: seeds 10,000, 10,001, ... for both sides
#: The return each id's curves are timed to by default (None: no target).
TARGETS = {"heartpole-v1": 450.0}


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _jax_entry(result, seed: int) -> dict:
    """A JAX run's figures: its timings, curve points (the seconds since compiling began), settings."""
    curve = zip(result.steps, result.curve_seconds)
    points = [{"steps": int(s), "seconds": result.compile_seconds + float(t)} for s, t in curve]
    settings = {k: v for k, v in result.settings.items() if isinstance(v, (int, float, str, bool, dict))}
    timings = {"compile": result.compile_seconds, "train": result.train_seconds, "wall": result.seconds}
    return {"seed": seed, "steps": result.timesteps, **timings, "points": points, "settings": settings}


def run(args) -> dict:
    from gym_suite.training.jax import _schedule, ppo_budget, ppo_settings, train_ppo
    from gym_suite.training.recipes import recipe_budget, recipe_for

    budget = args.timesteps or recipe_budget(args.id, "sb3-ppo")
    jax_budget = args.timesteps or ppo_budget(args.id)
    env_kwargs = recipe_for(args.id).eval_env_kwargs or None
    sb3_overrides, sb3_terminal = dict(args.sb3), recipe_for(args.id).truncation_is_terminal.get("ppo", False)
    seeds = list(range(args.seed, args.seed + args.seeds))
    settings = ppo_settings(args.id)  # SB3 is evaluated at the rollout boundaries next to JAX's evaluation points
    every, _ = _schedule(jax_budget, settings["num_envs"] * settings["num_steps"], settings["eval_points"])

    def curve_mean(policy) -> float:
        episodes = args.curve_episodes
        result = gym_suite.evaluate(
            args.id, policy, episodes=episodes, seed=CURVE_SEED, env_kwargs=env_kwargs, progress=False
        )
        return float(result.mean)

    def final_score(policy) -> tuple[float, float]:
        result = gym_suite.evaluate(args.id, policy, episodes=args.episodes, env_kwargs=env_kwargs, progress=False)
        return float(result.mean), float(result.std)

    def sb3(seed: int) -> dict:
        import_gym_quietly()
        from _sb3_curve import curve_callback

        from gym_suite.training.sb3 import SB3Policy, train_sb3

        record: dict = {"seed": seed, "points": []}
        callback = curve_callback(record, lambda model: {"mean": curve_mean(SB3Policy(model, name="sb3-ppo"))}, every)
        recipe = {"overrides": sb3_overrides, "truncation_is_terminal": sb3_terminal}
        model = train_sb3(args.id, "ppo", steps=budget, seed=seed, callback=callback, **recipe)
        record["final"] = final_score(SB3Policy(model, name="sb3-ppo"))
        _log(f"SB3 PPO seed {seed}: {record['wall']:.1f} s, return {record['final'][0]:.2f} (load {load_average()})")
        return record

    target = args.target if args.target is not None else TARGETS.get(args.id)
    out: dict = {"id": args.id, "budget": budget, "jax_budget": jax_budget, "target": target, "seeds": seeds}
    out |= {"episodes": args.episodes, "curve_episodes": args.curve_episodes, "sb3_overrides": sb3_overrides}
    out |= {"sb3_truncation_is_terminal": sb3_terminal, "load_start": load_average(), "jax": [], "sb3": []}
    started = time.perf_counter()
    jax_policies: dict[int, tuple] = {}
    with no_version_notice():
        for k, seed in enumerate(seeds):
            for side in ("jax", "sb3") if k % 2 == 0 else ("sb3", "jax"):
                if side == "jax":
                    result = train_ppo(args.id, seed=seed, total_timesteps=jax_budget, keep_checkpoints=True)
                    jax_policies[seed] = (result.policy, [c[0] for c in result.checkpoints])
                    out["jax"].append(_jax_entry(result, seed))
                    _log(f"JAX PPO seed {seed}: {result.seconds:.1f} s (load {load_average()})")
                elif not args.skip_sb3:
                    out["sb3"].append(sb3(seed))
        out["load_after_training"] = load_average()
        for entry in out["jax"]:
            final, checkpoints = jax_policies[entry["seed"]]
            entry["final"] = final_score(final)
            for point, policy in zip(entry["points"], checkpoints):
                point["mean"] = curve_mean(policy)
        if args.jax_seeds > 1:
            many = train_ppo(args.id, seed=args.seed, num_seeds=args.jax_seeds, total_timesteps=jax_budget)
            timings = {"compile": many.compile_seconds, "train": many.train_seconds, "wall": many.seconds}
            finals = [final_score(p)[0] for p in many.policies]
            out["jax_vmapped"] = {"seeds": many.seeds, "steps": many.timesteps, **timings, "load": load_average()}
            out["jax_vmapped"]["finals"] = finals
    out |= {"load_end": load_average(), "wall_seconds": time.perf_counter() - started}
    machine = f"{cpu_name()} ({os.cpu_count()} cores), Python {platform.python_version()}"
    return out | {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": machine}


def report(out: dict) -> str:
    target, cache, many = out["target"], out.get("jax_cache"), out.get("jax_vmapped")
    lines = [
        f"{out['id']}: {out.get('jax_budget', out['budget']):,} env steps for JAX, {out['budget']:,} for SB3, "
        f"seeds {', '.join(map(str, out['seeds']))}; final greedy "
        f"return on {out['episodes']:,} seeded episodes of the numpy env, curves on {out['curve_episodes']} "
        f"(seeds {CURVE_SEED:,} on).",
        f"Measured {out['date']} on {out['machine']}; load average {out['load_start']} at the start, "
        f"{out.get('load_after_training', '?')} after the training runs, {out['load_end']} at the end "
        f"(took {out['wall_seconds'] / 60:.1f} min). Command: {out.get('command', COMMAND)}",
    ]
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
        for e in out[side]:
            reached = first_reached(e["points"], target)
            to = f"{reached['seconds']:.1f} | {reached['steps']:,}" if reached else "not reached | -"
            times = f"{e['compile']:.1f} | {e['train']:.1f}" if side == "jax" else f"- | {e['wall']:.1f}"
            mean, std = e["final"]
            lines.append(f"| {name} | {e['seed']} | {e['steps']:,} | {times} | {e['wall']:.1f} | {mean:.2f} ± {std:.2f} | {to} |")  # fmt: skip
    if many:
        lines.append(
            f"| JAX PPO, {len(many['seeds'])} seeds vmapped | {many['seeds'][0]}-{many['seeds'][-1]} | "
            f"{many['steps']:,} | {many['compile']:.1f} | {many['train']:.1f} | {many['wall']:.1f} | "
            f"{min(many['finals']):.2f} to {max(many['finals']):.2f} | | |"
        )
    if out["sb3"] and out["jax"]:
        lines += ["", *_ratios(out)]
    return "\n".join(lines) + "\n"


def _ratios(out: dict) -> list[str]:
    """SB3's medians over JAX's: the whole budget's wall time, the time to the target, the vmapped run."""
    target, many = out["target"], out.get("jax_vmapped")
    jax_wall, sb3_wall = (_median([e["wall"] for e in out[side]]) for side in ("jax", "sb3"))

    def to_target(side):
        reached = [first_reached(e["points"], target) for e in out[side]]
        return _median([r["seconds"] if r else None for r in reached]), sum(r is not None for r in reached)

    (jax_to, jax_n), (sb3_to, sb3_n) = to_target("jax"), to_target("sb3")
    lines = [
        f"Medians over the seeds: wall time of the whole budget JAX {jax_wall:.1f} s, SB3 {sb3_wall:.1f} s: "
        f"SB3 / JAX = {sb3_wall / jax_wall:.1f}x."
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
    return lines


def plot(out: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), sharey=True)
    for side, label, color in [("jax", "JAX PPO (rejax)", "tab:blue"), ("sb3", "SB3 PPO (SuiteVecEnv)", "tab:orange")]:
        runs = out[side]
        n = min((len(r["points"]) for r in runs), default=0)
        means = np.array([[p["mean"] for p in r["points"][:n]] for r in runs])
        for ax, key in zip(axes, ("steps", "seconds") if runs else ()):
            x = np.array([[p[key] for p in r["points"][:n]] for r in runs]).mean(axis=0)
            ax.plot(x, means.mean(axis=0), color=color, label=f"{label}, {len(runs)} seeds")
            ax.fill_between(x, means.min(axis=0), means.max(axis=0), color=color, alpha=0.25, linewidth=0)
    target = out["target"]
    for ax in axes:
        if target is not None:
            ax.axhline(target, color="grey", linestyle="--", linewidth=1, label=f"return {target:g}")
        ax.grid(alpha=0.3)
    _cut_axis(axes, out)
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


def _cut_axis(axes, out: dict) -> None:
    """The return axis from 250 below the target (or the best return) up, said on the figure when
    the earliest points lie below it."""
    means = [[p["mean"] for p in r["points"]] for side in ("jax", "sb3") for r in out[side]]
    low, high, lowest = min(m for ms in means for m in ms[1:]), max(map(max, means)), min(map(min, means))
    bottom = max(low, (out["target"] or high) - 250) - 10
    axes[0].set_ylim(bottom, high + 10)
    if lowest < bottom:  # the axis starts above the first points: say so on the figure
        for ax in axes:
            text = f"axis cut at {bottom:.0f}: the earliest points\nlie below it (lowest {lowest:,.0f})"
            ax.text(0.98, 0.55, text, transform=ax.transAxes, fontsize=8, color="dimgrey", ha="right", va="center")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("id", nargs="?", default="heartpole-v1", choices=gym_suite.ENV_IDS)
    add("--timesteps", type=positive_int, default=None, help="env steps per run, both sides (default: each side's recipe budget)")  # fmt: skip
    add("--seed", type=non_negative_int, default=0, help="the first seed")
    add("--seeds", type=positive_int, default=1, help="seeds per side, one run each")
    add("--jax-seeds", type=positive_int, default=1, help="also train this many JAX seeds in one vmapped run (1: not)")
    add("--episodes", type=positive_int, default=1000, help="evaluation episodes of a final policy")
    add("--curve-episodes", type=positive_int, default=100, help="evaluation episodes of a curve point")
    add("--target", type=float, default=None, help="the return the curves are timed to")
    add("--skip-sb3", action="store_true", help="train the JAX side only")
    add("--sb3", nargs="+", type=key_value, default=[], metavar="KEY=VALUE", help="SB3 PPO settings over the recipe's")
    add("--jax-cache", metavar="DIR", default="off",
        help="JAX's compilation cache for the JAX runs (default: off, every run compiles afresh)")  # fmt: skip
    add("--png", metavar="PATH", help="draw the learning curves to this PNG")
    add("--json", metavar="PATH", help="save every figure as JSON")
    add("--from-json", metavar="PATH", help="print (and --png draw) a saved run instead of training")
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
        out = run(args) | {"jax_cache": args.jax_cache}
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
