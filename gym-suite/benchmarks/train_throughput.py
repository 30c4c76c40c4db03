"""Training throughput: Stable-Baselines3 PPO on the native vector env against DummyVecEnv, in one run.

::

    python gym-suite/benchmarks/train_throughput.py                       # every id, 16 envs
    python gym-suite/benchmarks/train_throughput.py --ids example-v0 --steps 65536 --seeds 3 --json out.json

For every id it trains Stable-Baselines3 PPO twice per seed, with the same recipe
(``gym_suite.training.recipes``: hyper-parameters, normalization, reward transforms), the same
seed and the same budget of environment steps: once on the id's native vector env
(``SuiteVecEnv``) and once on ``DummyVecEnv`` of scalar envs, ``--n-envs`` copies each. The runs
of one seed follow each other (the order alternates from seed to seed), so that the load of
other processes hits both alike. It reports, side by side:

- env-steps/s of the whole training loop (``model.learn``: collecting rollouts and updating the
  networks), without the time of the evaluations below;
- env-steps/s of the collection phase alone (``collect_rollouts``: the policy's forward pass,
  the environment steps and the rollout buffer), and the share of the time spent updating;
- env-steps/s of ``VecEnv.step`` alone (random actions drawn in advance, the training
  transforms of the recipe applied), the environments' part of the collection phase;
- the learning curves: the greedy agent is evaluated with ``gym_suite.evaluate`` on the same
  seeded episodes every ``--eval-every`` steps (at the first rollout boundary past each
  multiple: PPO's policy only changes between rollouts) and at the end, next to the random
  policy and the heuristic on the same episodes. "Reached" is the training time (evaluations
  left out) and steps at the first evaluation whose mean return is at least
  ``heuristic - (1 - reach) * (heuristic - random)`` (``--reach 1``: the heuristic's return
  itself). The curves agree when, at every evaluation, the difference of the two mean returns
  (averaged over the seeds) is within 3 standard errors; with several seeds the standard
  error comes from the spread between seeds (which holds the evaluation noise), with one from
  the episode-by-episode differences of the evaluation only.

Training runs on the CPU with one torch thread (``train_sb3``). Standard error shows the
environment steps trained (``gym_suite.progress``: a bar on a terminal, a line every few
seconds elsewhere) and one line per run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from _machine import cpu_name, load_average, versions  # this folder's helpers (the script's folder is on sys.path)
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


@dataclass
class Run:
    """One training run: its timings and its evaluations."""

    env_id: str
    variant: str
    seed: int
    steps: int = 0
    wall: float = 0.0  # model.learn, evaluations left out
    collect: float = 0.0  # collect_rollouts, evaluations left out
    evals: list[dict] = field(default_factory=list)  # {"steps", "seconds", "mean", "returns"}

    @property
    def loop_rate(self) -> float:
        return self.steps / self.wall if self.wall > 0 else math.nan

    @property
    def collect_rate(self) -> float:
        return self.steps / self.collect if self.collect > 0 else math.nan

    @property
    def update_share(self) -> float:
        return (self.wall - self.collect) / self.wall if self.wall > 0 else math.nan


# --------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------


def _timing_callback(run: Run, evaluate_agent, eval_every: int, progress: Progress | None = None):
    """A Stable-Baselines3 callback that times the phases and evaluates at rollout boundaries
    (``progress`` counts the env steps trained)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Timing(BaseCallback):
        def __init__(self):
            super().__init__()
            self.eval_seconds = 0.0
            self.next_eval = 0
            self.started = self.rollout_started = 0.0
            self.rollout_eval = 0.0
            self.last_steps = 0

        def _evaluate(self) -> None:
            start = time.perf_counter()
            result = evaluate_agent(self.model)
            self.eval_seconds += time.perf_counter() - start
            run.evals.append(
                {
                    "steps": int(self.model.num_timesteps),
                    "seconds": self._train_seconds(),
                    "mean": result.mean,
                    "returns": result.returns.tolist(),
                }
            )
            while self.next_eval <= self.model.num_timesteps:
                self.next_eval += eval_every

        def _train_seconds(self) -> float:
            return time.perf_counter() - self.started - self.eval_seconds

        def _on_training_start(self) -> None:
            self.started = time.perf_counter()
            self._evaluate()  # the untrained agent

        def _on_rollout_start(self) -> None:
            if self.model.num_timesteps >= self.next_eval:
                self._evaluate()  # the policy the previous update made
            self.rollout_started = time.perf_counter()
            self.rollout_eval = self.eval_seconds

        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            run.collect += time.perf_counter() - self.rollout_started - (self.eval_seconds - self.rollout_eval)
            if progress is not None:
                progress.update(self.model.num_timesteps - self.last_steps)
            self.last_steps = self.model.num_timesteps

        def _on_training_end(self) -> None:
            run.wall = self._train_seconds()
            run.steps = int(self.model.num_timesteps)
            self._evaluate()  # the trained agent

    return Timing()


def train_run(
    env_id: str,
    variant: str,
    seed: int,
    steps: int,
    n_envs: int,
    eval_every: int,
    eval_episodes: int,
    overrides: dict | None = None,
    progress: Progress | None = None,
) -> Run:
    from gym_suite.training.sb3 import SB3Policy, train_sb3

    run = Run(env_id, variant, seed)

    def evaluate_agent(model):
        policy = SB3Policy(model, name=f"ppo-{variant}")
        return gym_suite.evaluate(env_id, policy, episodes=eval_episodes, seed=EVAL_SEED, progress=False)

    callback = _timing_callback(run, evaluate_agent, eval_every, progress)
    train_sb3(env_id, "ppo", steps, seed=seed, vec_env=variant, n_envs=n_envs, callback=callback, overrides=overrides)
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


# --------------------------------------------------------------------------------------------
# Summaries
# --------------------------------------------------------------------------------------------


def reach_threshold(random_mean: float, heuristic_mean: float, reach: float) -> float:
    return heuristic_mean - (1.0 - reach) * (heuristic_mean - random_mean)


def first_reached(run: Run, threshold: float) -> dict | None:
    for point in run.evals:
        if point["mean"] >= threshold - 1e-9:
            return point
    return None


def curve_agreement(native: list[Run], dummy: list[Run]) -> tuple[float, str]:
    """``(max |z| over the evaluations, how the standard error was estimated)``.

    ``z``: the difference of the two variants' mean returns (averaged over the seeds) over its
    standard error. With two seeds or more a variant, the standard error comes from the spread
    of the runs' means between seeds (which holds the evaluation noise), but never below the
    evaluation noise alone (two seeds can agree by chance); with one, from the episode-by-episode
    differences of the evaluation (the same seeded episodes).
    """
    points = min(len(r.evals) for r in native + dummy)
    worst = 0.0
    several = len(native) >= 2 and len(dummy) >= 2
    how = "seed spread, at least the evaluation noise" if several else "evaluation noise only (one seed)"
    for i in range(points):
        a = np.array([r.evals[i]["mean"] for r in native])
        b = np.array([r.evals[i]["mean"] for r in dummy])
        diff = a.mean() - b.mean()
        if several:
            pooled = (a.var(ddof=1) + b.var(ddof=1)) / 2.0
            noise = sum(
                np.mean([np.var(r.evals[i]["returns"], ddof=1) / len(r.evals[i]["returns"]) for r in runs]) / len(runs)
                for runs in (native, dummy)
            )
            se = math.sqrt(max(pooled * (1.0 / len(native) + 1.0 / len(dummy)), noise))
        else:
            paired = np.array(native[0].evals[i]["returns"]) - np.array(dummy[0].evals[i]["returns"])
            se = float(paired.std(ddof=1) / math.sqrt(len(paired))) if len(paired) > 1 else 0.0
        z = abs(diff) / se if se > 0 else (0.0 if abs(diff) < 1e-12 else math.inf)
        worst = max(worst, z)
    return worst, how


def _overrides(settings: dict) -> str:
    ppo = settings.get("ppo") or {}
    return f" (and {', '.join(f'{k}={v!r}' for k, v in ppo.items())})" if ppo else ""


def _median(values) -> float:
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else math.nan


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


def table(header: list[str], rows: list[list[str]]) -> str:
    return markdown_table(header, rows)


def report(result: dict) -> str:
    s = result["settings"]
    lines = [
        f"Measured {result['date']} with `{result['command']}` (took {result['wall_seconds'] / 60:.1f} min).",
        "",
        f"{result['machine']['cpu']} ({result['machine']['cores']} cores), Python {result['machine']['python']}, "
        f"{result['machine']['versions']}; load average {result['machine']['load_start']} at the start, "
        f"{result['machine']['load_end']} at the end.",
        f"SB3 PPO with each id's recipe{_overrides(s)}, {s['n_envs']} envs, {s['steps']:,} env steps a run, seeds "
        f"{', '.join(map(str, range(s['seeds'])))}; medians over the seeds. Evaluation: {s['eval_episodes']} "
        f"episodes from seed {EVAL_SEED} every {s['eval_every']:,} steps (at rollout boundaries) and at the end.",
        "",
    ]
    rows = []
    for env_id, r in result["ids"].items():
        loop = {v: _median([run["steps"] / run["wall"] for run in r["runs"][v]]) for v in VARIANTS}
        collect = {v: _median([run["steps"] / run["collect"] for run in r["runs"][v]]) for v in VARIANTS}
        share = {v: _median([(run["wall"] - run["collect"]) / run["wall"] for run in r["runs"][v]]) for v in VARIANTS}
        step = r["step_rates"]
        rows.append(
            [
                env_id,
                _rate(loop["native"]),
                _rate(loop["dummy"]),
                _ratio(loop["native"], loop["dummy"]),
                _rate(collect["native"]),
                _rate(collect["dummy"]),
                _ratio(collect["native"], collect["dummy"]),
                f"{share['native']:.0%} / {share['dummy']:.0%}",
                _rate(step["native"]),
                _rate(step["dummy"]),
                _ratio(step["native"], step["dummy"]),
            ]
        )
    lines += [
        "Env-steps/s (native = SuiteVecEnv over the native vector env):",
        "",
        table(
            [
                "id",
                "loop: native",
                "loop: DummyVecEnv",
                "ratio",
                "collect: native",
                "collect: DummyVecEnv",
                "ratio",
                "updating (native / Dummy)",
                "VecEnv.step: native",
                "VecEnv.step: DummyVecEnv",
                "ratio",
            ],
            rows,
        ),
        "",
    ]
    rows = []
    for env_id, r in result["ids"].items():
        threshold = r["threshold"]
        runs = {
            v: [Run(env_id, v, x["seed"], x["steps"], x["wall"], x["collect"], x["evals"]) for x in r["runs"][v]]
            for v in VARIANTS
        }
        z, how = curve_agreement(runs["native"], runs["dummy"])
        finals = {v: _median([run.evals[-1]["mean"] for run in runs[v]]) for v in VARIANTS}
        rows.append(
            [
                env_id,
                f"{r['random']:.3f}",
                f"{r['heuristic']:.3f}",
                f"{threshold:.3f}",
                _reached([first_reached(run, threshold) for run in runs["native"]]),
                _reached([first_reached(run, threshold) for run in runs["dummy"]]),
                f"{finals['native']:.3f}",
                f"{finals['dummy']:.3f}",
                f"{'yes' if z <= AGREE_Z else 'no'} (largest z {z:.2f}; {how})",
            ]
        )
    lines += [
        f"Learning: mean evaluation return; reached = training wall time (evaluations left out) to a mean "
        f"return >= heuristic - {1 - s['reach']:g} x (heuristic - random):",
        "",
        table(
            [
                "id",
                "random",
                "heuristic",
                "threshold",
                "reached: native",
                "reached: DummyVecEnv",
                "final: native",
                "final: DummyVecEnv",
                "curves agree",
            ],
            rows,
        ),
        "",
    ]
    rows = []
    for env_id, r in result["ids"].items():
        loop = {v: _median([run["steps"] / run["wall"] for run in r["runs"][v]]) for v in VARIANTS}
        ratio = loop["native"] / loop["dummy"]
        rows.append(
            [
                f"{env_id} whole training loop, native >= {TARGET_RATIO:g}x DummyVecEnv at {s['n_envs']} envs",
                f"{ratio:.2f}x",
                "PASS" if ratio >= TARGET_RATIO else "MISS",
            ]
        )
    lines += [
        f"The aim: the native env makes the whole training loop at least {TARGET_RATIO:g}x as fast as DummyVecEnv. "
        "PASS: the ratio of this run reaches it; MISS: it does not (what bounds the ratio: the share of the "
        "loop spent updating the networks, in the first table).",
        "",
        table(["target (ratio of medians, same run)", "ratio", "result"], rows),
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="+", metavar="ID", default=None, help="ids (default: every registered id)")
    parser.add_argument("--steps", type=positive_int, default=32_768, help="env steps of a training run")
    parser.add_argument("--n-envs", type=positive_int, default=16, help="env copies, for both variants")
    parser.add_argument("--seeds", type=positive_int, default=2, help="training seeds 0..SEEDS-1, for both variants")
    parser.add_argument("--eval-every", type=positive_int, default=8_192, help="env steps between evaluations")
    parser.add_argument("--eval-episodes", type=positive_int, default=30, help="episodes of an evaluation")
    parser.add_argument(
        "--reach",
        type=float,
        default=0.95,
        help="reached: this fraction of the way from random's return to the heuristic's (1: the heuristic's)",
    )
    parser.add_argument("--step-seconds", type=float, default=STEP_SECONDS, help="length of each VecEnv.step timing")
    parser.add_argument(
        "--ppo",
        nargs="+",
        type=key_value,
        default=[],
        metavar="KEY=VALUE",
        help="PPO settings over the recipe's, for both variants (e.g. n_epochs=1 batch_size=256)",
    )
    parser.add_argument("--json", metavar="PATH", help="also save every figure (each run, each evaluation) as JSON")
    parser.add_argument(
        "--warmup",
        type=non_negative_int,
        default=2_048,
        help="env steps of an untimed run first (imports, first allocations)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    known = list(gym_suite.ENV_IDS)
    ids = args.ids or known
    unknown = [i for i in ids if i not in known]
    if unknown:
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
    result = {
        "command": " ".join([COMMAND, *(argv if argv is not None else sys.argv[1:])]).strip(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "settings": {
            "steps": args.steps,
            "n_envs": args.n_envs,
            "seeds": args.seeds,
            "eval_every": args.eval_every,
            "eval_episodes": args.eval_episodes,
            "reach": args.reach,
            "ppo": dict(args.ppo),
        },
        "ids": {},
    }
    total = len(ids) * args.seeds * len(VARIANTS) * args.steps
    with Progress(total, desc="train_throughput", unit="step") as progress:
        for env_id in ids:
            random = gym_suite.evaluate(env_id, "random", episodes=args.eval_episodes, seed=EVAL_SEED, progress=False)
            heuristic = gym_suite.evaluate(
                env_id, "heuristic", episodes=args.eval_episodes, seed=EVAL_SEED, progress=False
            )
            entry = {
                "random": random.mean,
                "heuristic": heuristic.mean,
                "threshold": reach_threshold(random.mean, heuristic.mean, args.reach),
                "runs": {v: [] for v in VARIANTS},
                "step_rates": step_rates(env_id, args.n_envs, args.step_seconds),
            }
            for seed in range(args.seeds):
                order = VARIANTS if seed % 2 == 0 else VARIANTS[::-1]
                for variant in order:
                    run = train_run(
                        env_id,
                        variant,
                        seed,
                        args.steps,
                        args.n_envs,
                        args.eval_every,
                        args.eval_episodes,
                        dict(args.ppo),
                        progress,
                    )
                    entry["runs"][variant].append(asdict(run))
                    progress.write(
                        f"{env_id:<14} {LABELS[variant]:<12} seed {seed}: {run.loop_rate:8,.0f} env-steps/s "
                        f"(collect {run.collect_rate:8,.0f}), final return {run.evals[-1]['mean']:.3f}"
                    )
            result["ids"][env_id] = entry
    result["wall_seconds"] = time.perf_counter() - started
    result["machine"] = {
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "versions": versions(("gymnasium", "numpy", "torch", "stable-baselines3")),
        "load_start": load_start,
        "load_end": load_average(),
    }
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
