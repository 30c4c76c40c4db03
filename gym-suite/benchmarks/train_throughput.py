"""Training throughput: Stable-Baselines3 PPO on the native vector env against DummyVecEnv, in one run.

    python gym-suite/benchmarks/train_throughput.py                       # every id, 16 envs
    python gym-suite/benchmarks/train_throughput.py --ids example-v0 --steps 65536 --seeds 3 --json out.json

Each id trains with its recipe on ``SuiteVecEnv`` and on ``DummyVecEnv`` per seed, the order
alternating: env-steps/s of the loop, of ``collect_rollouts`` and of ``VecEnv.step``, and the
learning curves of both, with the time to a return between random's and the heuristic's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from _machine import cpu_name, load_average, versions  # this folder's helpers (the script's folder is on sys.path)
from _sb3_curve import first_reached
from _sb3_curve import median as _median
from _tables import markdown_table

import gym_suite
from gym_suite.cli import key_value, non_negative_int, positive_int
from gym_suite.progress import Progress

COMMAND = "python gym-suite/benchmarks/train_throughput.py"
VARIANTS = ("native", "dummy")
LABELS = {"native": "native", "dummy": "DummyVecEnv"}
EVAL_SEED = 10_000  # the evaluation episodes: seeds 10,000, 10,001, ... for every agent
STEP_SECONDS = 1.0  # length of the VecEnv.step timing of each id and variant
TARGET_RATIO = 2.0  # the aim: the native env trains at least this many times as fast at 16 envs
AGREE_Z = 3.0


def train_run(env_id: str, variant: str, seed: int, args, progress: Progress | None = None) -> dict:
    """One training run: its timings and its evaluations (``evals``: steps, seconds, mean, returns)."""
    from _sb3_curve import curve_callback

    from gym_suite.training.sb3 import SB3Policy, train_sb3

    run = {"env_id": env_id, "variant": variant, "seed": seed, "steps": 0, "wall": 0.0, "collect": 0.0, "evals": []}

    def evaluate_agent(model) -> dict:
        policy = SB3Policy(model, name=f"ppo-{variant}")
        result = gym_suite.evaluate(env_id, policy, episodes=args.eval_episodes, seed=EVAL_SEED, progress=False)
        return {"mean": result.mean, "returns": result.returns.tolist()}

    callback = curve_callback(run, evaluate_agent, args.eval_every, progress, points="evals")
    kw = {"vec_env": variant, "n_envs": args.n_envs, "callback": callback, "overrides": dict(args.ppo)}
    train_sb3(env_id, "ppo", args.steps, seed=seed, **kw)
    return run


def step_rates(env_id: str, n_envs: int, seconds: float = STEP_SECONDS) -> dict[str, float]:
    """Env-steps/s of ``VecEnv.step`` alone for both variants (the recipe's PPO transforms, random actions)."""
    from gym_suite.training.recipes import recipe_for, training_env_kwargs
    from gym_suite.training.sb3 import make_sb3_env

    recipe = recipe_for(env_id)
    rates = {}
    for variant in VARIANTS:
        venv = make_sb3_env(
            env_id,
            n_envs,
            0,
            training_env_kwargs(env_id, "ppo"),
            reward_scale=recipe.reward_scale.get("ppo", 1.0),
            reward_offset=recipe.reward_offset.get("ppo", 0.0),
            vec_env=variant,
        )
        venv.action_space.seed(0)
        pool = [np.stack([venv.action_space.sample() for _ in range(n_envs)]) for _ in range(64)]
        venv.reset()
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for actions in pool:
                venv.step(actions)
            done += len(pool)
        rates[variant] = done * n_envs / (time.perf_counter() - start)
        venv.close()
    return rates


def reach_threshold(random_mean: float, heuristic_mean: float, reach: float) -> float:
    return heuristic_mean - (1.0 - reach) * (heuristic_mean - random_mean)


def curve_agreement(native: list[dict], dummy: list[dict]) -> tuple[float, str]:
    """``(max |z| over the evaluations, how the standard error was estimated)``.

    ``z``: the difference of the two variants' mean returns (averaged over the seeds) over its
    standard error. With two seeds or more a variant, the standard error comes from the spread
    of the runs' means between seeds (which holds the evaluation noise), but never below the
    evaluation noise alone (two seeds can agree by chance); with one, from the episode-by-episode
    differences of the evaluation (the same seeded episodes).
    """
    points = min(len(r["evals"]) for r in native + dummy)
    worst = 0.0
    several = len(native) >= 2 and len(dummy) >= 2
    how = "seed spread, at least the evaluation noise" if several else "evaluation noise only (one seed)"
    for i in range(points):
        a, b = (np.array([r["evals"][i]["mean"] for r in runs]) for runs in (native, dummy))
        diff = a.mean() - b.mean()
        if several:
            pooled = (a.var(ddof=1) + b.var(ddof=1)) / 2.0
            noise = sum(
                np.mean([np.var(r["evals"][i]["returns"], ddof=1) / len(r["evals"][i]["returns"]) for r in runs])
                / len(runs)
                for runs in (native, dummy)
            )
            se = math.sqrt(max(pooled * (1.0 / len(native) + 1.0 / len(dummy)), noise))
        else:
            paired = np.array(native[0]["evals"][i]["returns"]) - np.array(dummy[0]["evals"][i]["returns"])
            se = float(paired.std(ddof=1) / math.sqrt(len(paired))) if len(paired) > 1 else 0.0
        z = abs(diff) / se if se > 0 else (0.0 if abs(diff) < 1e-12 else math.inf)
        worst = max(worst, z)
    return worst, how


def _rate(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:,.0f}"


def _ratio(a: float, b: float) -> str:
    return "-" if math.isnan(a) or math.isnan(b) or b == 0 else f"{a / b:.2f}x"


def _reached(points: list[dict | None]) -> str:
    found = [p for p in points if p is not None]
    if not found:
        return "not reached"
    text = f"{_median([p['seconds'] for p in found]):.1f} s ({_median([p['steps'] for p in found]):,.0f} steps)"
    return text if len(found) == len(points) else f"{text}, {len(found)}/{len(points)} seeds"


def _per_variant(r: dict, of) -> dict[str, float]:
    """The median over the seeds of ``of(run)``, for each variant."""
    return {v: _median([of(run) for run in r["runs"][v]]) for v in VARIANTS}


def _loop(r: dict) -> dict[str, float]:
    return _per_variant(r, lambda run: run["steps"] / run["wall"])


def speed_table(result: dict) -> str:
    rows = []
    for env_id, r in result["ids"].items():
        loop, step = _loop(r), r["step_rates"]
        collect = _per_variant(r, lambda run: run["steps"] / run["collect"])
        share = _per_variant(r, lambda run: (run["wall"] - run["collect"]) / run["wall"])
        cells = [[_rate(d["native"]), _rate(d["dummy"]), _ratio(d["native"], d["dummy"])] for d in (loop, collect)]
        rows.append([env_id, *cells[0], *cells[1], f"{share['native']:.0%} / {share['dummy']:.0%}"])
        rows[-1] += [_rate(step["native"]), _rate(step["dummy"]), _ratio(step["native"], step["dummy"])]
    header = ["id", "loop: native", "loop: DummyVecEnv", "ratio", "collect: native", "collect: DummyVecEnv", "ratio"]
    header += ["updating (native / Dummy)", "VecEnv.step: native", "VecEnv.step: DummyVecEnv", "ratio"]
    return markdown_table(header, rows)


def learning_table(result: dict) -> str:
    rows = []
    for env_id, r in result["ids"].items():
        threshold, runs = r["threshold"], r["runs"]
        z, how = curve_agreement(runs["native"], runs["dummy"])
        finals = _per_variant(r, lambda run: run["evals"][-1]["mean"])
        reached = [_reached([first_reached(run["evals"], threshold, 1e-9) for run in runs[v]]) for v in VARIANTS]
        rows.append([env_id, f"{r['random']:.3f}", f"{r['heuristic']:.3f}", f"{threshold:.3f}", *reached])
        rows[-1] += [f"{finals['native']:.3f}", f"{finals['dummy']:.3f}"]
        rows[-1].append(f"{'yes' if z <= AGREE_Z else 'no'} (largest z {z:.2f}; {how})")
    header = ["id", "random", "heuristic", "threshold", "reached: native", "reached: DummyVecEnv", "final: native"]
    return markdown_table(header + ["final: DummyVecEnv", "curves agree"], rows)


def report(result: dict) -> str:
    s, m = result["settings"], result["machine"]
    ppo = s.get("ppo") or {}
    overrides = f" (and {', '.join(f'{k}={v!r}' for k, v in ppo.items())})" if ppo else ""
    targets = []
    for env_id, r in result["ids"].items():
        loop = _loop(r)
        ratio = loop["native"] / loop["dummy"]
        name = f"{env_id} whole training loop, native >= {TARGET_RATIO:g}x DummyVecEnv at {s['n_envs']} envs"
        targets.append([name, f"{ratio:.2f}x", "PASS" if ratio >= TARGET_RATIO else "MISS"])
    lines = [
        f"Measured {result['date']} with `{result['command']}` (took {result['wall_seconds'] / 60:.1f} min).",
        "",
        f"{m['cpu']} ({m['cores']} cores), Python {m['python']}, {m['versions']}; load average {m['load_start']} "
        f"at the start, {m['load_end']} at the end.",
        f"SB3 PPO with each id's recipe{overrides}, {s['n_envs']} envs, {s['steps']:,} env steps a run, seeds "
        f"{', '.join(map(str, range(s['seeds'])))}; medians over the seeds. Evaluation: {s['eval_episodes']} "
        f"episodes from seed {EVAL_SEED} every {s['eval_every']:,} steps (at rollout boundaries) and at the end.",
        "",
        "Env-steps/s (native = SuiteVecEnv over the native vector env):",
        "",
        speed_table(result),
        "",
        f"Learning: mean evaluation return; reached = training wall time (evaluations left out) to a mean "
        f"return >= heuristic - {1 - s['reach']:g} x (heuristic - random):",
        "",
        learning_table(result),
        "",
        f"The aim: the native env makes the whole training loop at least {TARGET_RATIO:g}x as fast as DummyVecEnv. "
        "PASS: the ratio of this run reaches it; MISS: it does not (what bounds the ratio: the share of the "
        "loop spent updating the networks, in the first table).",
        "",
        markdown_table(["target (ratio of medians, same run)", "ratio", "result"], targets),
    ]
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--ids", nargs="+", metavar="ID", default=None, help="ids (default: every registered id)")
    add("--steps", type=positive_int, default=32_768, help="env steps of a training run")
    add("--n-envs", type=positive_int, default=16, help="env copies, for both variants")
    add("--seeds", type=positive_int, default=2, help="training seeds 0..SEEDS-1, for both variants")
    add("--eval-every", type=positive_int, default=8_192, help="env steps between evaluations")
    add("--eval-episodes", type=positive_int, default=30, help="episodes of an evaluation")
    add("--reach", type=float, default=0.95,
        help="reached: this fraction of the way from random's return to the heuristic's (1: the heuristic's)")  # fmt: skip
    add("--step-seconds", type=float, default=STEP_SECONDS, help="length of each VecEnv.step timing")
    add("--ppo", nargs="+", type=key_value, default=[], metavar="KEY=VALUE",
        help="PPO settings over the recipe's, for both variants (e.g. n_epochs=1 batch_size=256)")  # fmt: skip
    add("--json", metavar="PATH", help="also save every figure (each run, each evaluation) as JSON")
    add("--warmup", type=non_negative_int, default=2_048, help="env steps of an untimed run first (imports, first allocations)")  # fmt: skip
    return parser


def measure(env_id: str, args, progress: Progress) -> dict:
    """An id's reference returns, step rates and training runs, the variants alternating by seed."""
    random, heuristic = (
        gym_suite.evaluate(env_id, policy, episodes=args.eval_episodes, seed=EVAL_SEED, progress=False).mean
        for policy in ("random", "heuristic")
    )
    entry = {"random": random, "heuristic": heuristic, "threshold": reach_threshold(random, heuristic, args.reach)}
    entry |= {"runs": {v: [] for v in VARIANTS}, "step_rates": step_rates(env_id, args.n_envs, args.step_seconds)}
    for seed in range(args.seeds):
        for variant in VARIANTS if seed % 2 == 0 else VARIANTS[::-1]:
            run = train_run(env_id, variant, seed, args, progress)
            entry["runs"][variant].append(run)
            loop, collect = (run["steps"] / t if t > 0 else math.nan for t in (run["wall"], run["collect"]))
            progress.write(
                f"{env_id:<14} {LABELS[variant]:<12} seed {seed}: {loop:8,.0f} env-steps/s "
                f"(collect {collect:8,.0f}), final return {run['evals'][-1]['mean']:.3f}"
            )
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    known = list(gym_suite.ENV_IDS)
    ids = args.ids or known
    if unknown := [i for i in ids if i not in known]:
        parser.error(f"unknown id(s) {unknown}; registered ids are {known}")
    if not 0.0 < args.reach <= 1.0:
        parser.error(f"--reach must be in (0, 1], got {args.reach}")
    if args.step_seconds <= 0:
        parser.error("--step-seconds must be positive")
    try:
        from gym_suite.training.sb3 import train_sb3
    except ImportError as exc:
        parser.error(str(exc))
    started, load_start = time.perf_counter(), load_average()
    if args.warmup:
        train_sb3(ids[0], "ppo", args.warmup, seed=0, n_envs=args.n_envs)
    settings = {k: getattr(args, k) for k in ("steps", "n_envs", "seeds", "eval_every", "eval_episodes", "reach")}
    result = {
        "command": " ".join([COMMAND, *(argv if argv is not None else sys.argv[1:])]).strip(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "settings": settings | {"ppo": dict(args.ppo)},
    }
    with Progress(len(ids) * args.seeds * len(VARIANTS) * args.steps, desc="train_throughput", unit="step") as progress:
        result["ids"] = {env_id: measure(env_id, args, progress) for env_id in ids}
    result["wall_seconds"] = time.perf_counter() - started
    result["machine"] = {
        "cpu": cpu_name(), "cores": os.cpu_count(), "python": platform.python_version(),
        "versions": versions(("gymnasium", "numpy", "torch", "stable-baselines3")),
        "load_start": load_start, "load_end": load_average(),
    }  # fmt: skip
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
