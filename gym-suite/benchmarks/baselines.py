"""The baselines table: random, the heuristic and trained agents on every suite environment.

    python gym-suite/benchmarks/baselines.py          # every id, 1,000 evaluation episodes
    python gym-suite/benchmarks/baselines.py --ids heartpole-v0 --budget heartpole-v0:sb3-ppo=300000
    python gym-suite/benchmarks/baselines.py --quick --no-rllib --out-md '' --out-csv ''   # a smoke run

For every registered id it evaluates the random policy and the environment's heuristic, trains
Stable-Baselines3 PPO (and DQN where the action space is discrete) and, when ``ray`` is
installed, Ray RLlib PPO, with the recipes of ``gym_suite.training.recipes``, then evaluates every
trained agent greedily on the same seeded episodes with ``gym_suite.evaluate``. It prints a
Markdown table and writes it, and a CSV file, to ``--out-md`` and ``--out-csv`` (by default
``docs/baselines.md`` and ``docs/baselines.csv`` of this repository, wherever it is run from).

Training runs on the CPU with one torch thread and small networks; Stable-Baselines3 trains on the
id's native vector env (``--vec-env dummy``: on ``DummyVecEnv`` of scalar envs). On a terminal a
progress bar on standard error counts the agents done; elsewhere only one line per agent is logged.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import gymnasium
import numpy as np
from _machine import cpu_name, versions  # this folder's helper (the script's folder is on sys.path)
from gymnasium import spaces

import gym_suite
from gym_suite.cli import jobs_int, non_negative_int, positive_int
from gym_suite.evaluate import EvalResult, evaluate
from gym_suite.training.recipes import TRAINED_AGENTS, recipe_budget

ROOT = Path(__file__).resolve().parents[2]  # the repository
DEFAULT_MD = ROOT / "docs" / "baselines.md"
DEFAULT_CSV = ROOT / "docs" / "baselines.csv"
COMMAND = "python gym-suite/benchmarks/baselines.py"

AGENTS = ("random", "heuristic", *TRAINED_AGENTS)
AGENT_LABELS = {
    "random": "random",
    "heuristic": "heuristic",
    "sb3-ppo": "SB3 PPO",
    "sb3-dqn": "SB3 DQN",
    "rllib-ppo": "RLlib PPO",
}
#: An agent beats another when its return is higher, episode by episode on the same seeds, by
#: more than this many standard errors of the mean difference (about 2.5 % one-sided false
#: positives for normal means).
MARGIN_SE = 2.0
QUICK_EPISODES = 100
QUICK_BUDGET = 5_000


def _budget(env_id: str, agent: str, overrides: dict | None = None, quick: bool = False) -> int:
    overrides = overrides or {}
    for key in ((env_id, agent), (None, agent)):
        if key in overrides:
            return overrides[key]
    if quick:
        return QUICK_BUDGET
    return recipe_budget(env_id, agent)


def ray_available() -> bool:
    try:
        import gym_suite.training.rllib  # noqa: F401
    except ImportError:
        return False
    return True


def sb3_available() -> bool:
    try:
        import gym_suite.training.sb3  # noqa: F401
    except ImportError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the baselines table (``result``: the evaluation, returns per episode in seed order)."""

    env_id: str
    agent: str
    episodes: int
    seed: int
    mean: float
    std: float
    mean_length: float
    train_steps: int | None = None
    train_seconds: float | None = None
    eval_seconds: float = 0.0
    result: EvalResult | None = field(default=None, repr=False)
    train_data_mean: float | None = None  # the return on the data it trained on, where it differs
    vs_random: Comparison | None = None
    vs_heuristic: Comparison | None = None

    @classmethod
    def from_result(cls, agent: str, result: EvalResult, eval_seconds: float, **extra) -> Row:
        return cls(
            result.env_id,
            agent,
            len(result.returns),
            result.seed,
            result.mean,
            result.std,
            result.mean_length,
            eval_seconds=eval_seconds,
            result=result,
            **extra,
        )


@dataclass(frozen=True)
class Comparison:
    """Mean and standard error of the per-episode difference of returns between two agents.

    Both agents played the same seeded episodes, so the difference is taken episode by episode
    (a paired comparison): randomness the two share (the same start, the same draws where the
    env's random stream lines up) cancels out.
    """

    diff: float
    se: float

    @property
    def better(self) -> bool:
        """Higher by more than :data:`MARGIN_SE` standard errors."""
        return self.diff > MARGIN_SE * self.se if self.se > 0 else self.diff > 0

    def __str__(self) -> str:
        return f"{_short(self.diff, '+')} ± {_short(self.se)} ({'yes' if self.better else 'no'})"


def _short(x: float, sign: str = "") -> str:
    """Three significant digits, without exponents for numbers of a few thousands."""
    if abs(x) >= 1000:
        return format(x, f"{sign},.0f")
    return format(x, f"{sign}.3g")


def compare(a: Row, b: Row | None) -> Comparison | None:
    """``a`` against ``b`` on the same episodes (None when ``b`` is missing or played others)."""
    if b is None or a.result is None or b.result is None:
        return None
    try:
        return Comparison(*a.result.paired_difference(b.result))
    except ValueError:  # not the same episodes
        return None


def _compare(rows: list[Row]) -> None:
    by_key = {(r.env_id, r.agent): r for r in rows}
    for row in rows:
        if row.agent in TRAINED_AGENTS:
            row.vs_random = compare(row, by_key.get((row.env_id, "random")))
            row.vs_heuristic = compare(row, by_key.get((row.env_id, "heuristic")))


CSV_FIELDS = (
    "env_id",
    "agent",
    "episodes",
    "seed",
    "mean_return",
    "std_return",
    "mean_length",
    "train_steps",
    "train_seconds",
    "eval_seconds",
    "mean_return_on_training_data",
    "diff_vs_random",
    "se_vs_random",
    "beats_random",
    "diff_vs_heuristic",
    "se_vs_heuristic",
    "beats_heuristic",
)


def _fmt(value, spec: str) -> str:
    return "" if value is None else format(value, spec)


def write_csv(rows: list[Row], path: str | os.PathLike) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_FIELDS)
        for r in rows:
            cells = [
                r.env_id,
                r.agent,
                r.episodes,
                r.seed,
                f"{r.mean:.6g}",
                f"{r.std:.6g}",
                f"{r.mean_length:.6g}",
                _fmt(r.train_steps, "d"),
                _fmt(r.train_seconds, ".1f"),
                f"{r.eval_seconds:.1f}",
                _fmt(r.train_data_mean, ".6g"),
            ]
            for c in (r.vs_random, r.vs_heuristic):
                cells += ["", "", ""] if c is None else [f"{c.diff:.6g}", f"{c.se:.6g}", c.better]
            writer.writerow(cells)


def to_markdown(rows: list[Row], command: str, notes: list[str], total_seconds: float) -> str:
    episodes = sorted({r.episodes for r in rows})
    seeds = sorted({r.seed for r in rows})
    lines = [
        "# Baselines",
        "",
        "Reproduce with",
        "",
        "```bash",
        command,
        "```",
        "",
        f"Measured on {date.today().isoformat()} on {cpu_name()} ({os.cpu_count()} cores), Python "
        f"{platform.python_version()}, {versions()}; the whole run took {total_seconds / 60:.1f} min.",
        "",
        f"Return: mean ± standard deviation over {'/'.join(map(str, episodes))} evaluation episodes, episode "
        f"*i* reset with seed {'/'.join(map(str, seeds))} + *i*: the same episodes for every agent. Trained "
        "agents act greedily (the most probable action, or the mean). Budget: environment steps of training. "
        "Train and eval: wall time in seconds (training with one torch thread on the CPU; evaluation "
        "in parallel on every core). "
        "− random, − heuristic: the trained agent's return minus the other's, episode by episode (same seeds), "
        f"mean ± standard error; yes when it is above zero by more than {MARGIN_SE:g} standard errors. "
        "Budgets and settings: `RECIPES` in `gym_suite/training/recipes.py`, sized for a run of well under an hour "
        "on 2 cores.",
        "",
        "Where an environment replays data (push-v0), every agent is scored on held-out data it did not "
        "train on (its recipe's `eval_env_kwargs`: the test log); the column *on training data* gives the "
        "return on the training log beside it, so that memorisation shows as a gap.",
        "",
        "| environment | agent | return (mean ± std) | on training data | mean length | budget (steps) | train (s) "
        "| eval (s) | − random | − heuristic |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| `{r.env_id}` | {AGENT_LABELS.get(r.agent, r.agent)} | {r.mean:.2f} ± {r.std:.2f} | "
            f"{'' if r.train_data_mean is None else f'{r.train_data_mean:.2f}'} | "
            f"{r.mean_length:.1f} | {'' if r.train_steps is None else f'{r.train_steps:,}'} | "
            f"{'' if r.train_seconds is None else f'{r.train_seconds:.0f}'} | {r.eval_seconds:.1f} | "
            f"{r.vs_random or ''} | {r.vs_heuristic or ''} |"
        )
    if notes:
        lines += ["", *[f"- {note}" for note in notes]]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Running it
# --------------------------------------------------------------------------------------------


_BAR = None  # the progress bar while one runs: log lines go above it


def _log(message: str) -> None:
    if _BAR is not None:
        _BAR.write(message, file=sys.stderr)
    else:
        print(message, file=sys.stderr, flush=True)


def _progress(total: int, label: str):
    """A tqdm bar on standard error when it is a terminal; None elsewhere (nothing drawn)."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=label, unit="agent", file=sys.stderr, leave=False)


def run(
    ids: list[str],
    agents: list[str],
    episodes: int = 1000,
    seed: int = 0,
    n_jobs: int = -1,
    budgets: dict | None = None,
    quick: bool = False,
    num_env_runners: int = 1,
    vec_env: str = "native",
) -> tuple[list[Row], list[str]]:
    """Evaluate and train ``agents`` on every id in ``ids``: ``(rows, notes)``."""
    global _BAR
    rows: list[Row] = []
    notes: list[str] = []
    use_rllib = "rllib-ppo" in agents
    ray_started = False
    if use_rllib:
        import ray

        if not ray.is_initialized():
            ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
            ray_started = True
    _BAR = _progress(len(ids) * len(agents), "baselines")
    try:
        for env_id in ids:
            probe = gymnasium.make(env_id)
            discrete = isinstance(probe.action_space, spaces.Discrete)
            probe.close()
            for agent in agents:
                if _BAR is not None:
                    _BAR.set_postfix_str(f"{env_id} {AGENT_LABELS[agent]}")
                if agent == "sb3-dqn" and not discrete:
                    notes.append(f"`{env_id}`: no DQN row, the action space is continuous.")
                else:
                    row = _run_agent(env_id, agent, episodes, seed, n_jobs, budgets, quick, num_env_runners, vec_env)
                    rows.append(row)
                    _log(
                        f"{env_id:<14} {AGENT_LABELS[agent]:<10} {row.mean:10.3f} ± {row.std:<9.3f}"
                        f" train {row.train_steps or 0:>8} steps {row.train_seconds or 0:7.1f} s"
                        f"  eval {row.eval_seconds:6.1f} s"
                    )
                if _BAR is not None:
                    _BAR.update(1)
    finally:
        if _BAR is not None:
            _BAR.close()
            _BAR = None
        if ray_started:
            import ray

            ray.shutdown()
    _compare(rows)
    if "push-v0" in ids:
        notes.append(_push_note())
    return rows, notes


def _push_note() -> str:
    """The Bayes-optimal accuracy of push-v0's logs, from the generator's open probabilities."""
    from gym_suite.envs.push_log import load_log

    bounds = []
    for split in ("train", "test"):
        p_open = load_log(split=split).p_open
        accuracy = float(np.maximum(p_open, 1.0 - p_open).mean())
        bounds.append(f"{accuracy:.1%} on the {split}ing log (return {100 * (2 * accuracy - 1):.1f} per 100)")
    return (
        "`push-v0`: accuracy = (return / 100 + 1) / 2 for 100-notification windows. The generator's open "
        f"probabilities allow at most {bounds[0]} and {bounds[1].replace('testing', 'test')} in expectation "
        "(Bayes-optimal); a score above that on the data an agent trained on is memorised noise."
    )


def _run_agent(env_id, agent, episodes, seed, n_jobs, budgets, quick, num_env_runners, vec_env="native") -> Row:
    train_steps = train_seconds = None
    if agent in ("random", "heuristic"):
        policy = agent
    else:
        steps = _budget(env_id, agent, budgets, quick)
        start = time.perf_counter()
        if agent in ("sb3-ppo", "sb3-dqn"):
            from gym_suite.training.sb3 import SB3Policy, train_sb3

            model = train_sb3(env_id, agent.split("-")[1], steps, seed=seed, vec_env=vec_env)
            policy = SB3Policy(model, name=agent)
            train_steps = int(model.num_timesteps)
        else:
            from gym_suite.training.rllib import RLlibPolicy, train_rllib

            checkpoint_dir = Path(tempfile.mkdtemp(prefix="gym_suite_rllib_"))
            try:
                checkpoint, train_steps = train_rllib(
                    env_id, steps, seed=seed, num_env_runners=num_env_runners, checkpoint_dir=checkpoint_dir
                )
                policy = RLlibPolicy.from_checkpoint(checkpoint, env_id)
            finally:
                shutil.rmtree(checkpoint_dir, ignore_errors=True)
        train_seconds = time.perf_counter() - start
    from gym_suite.training.recipes import recipe_for

    held_out = recipe_for(env_id).eval_env_kwargs
    start = time.perf_counter()
    result = evaluate(env_id, policy, episodes=episodes, seed=seed, n_jobs=n_jobs, env_kwargs=held_out or None)
    seconds = time.perf_counter() - start
    train_data_mean = None
    if held_out:  # the same agent on the data it trained on, beside it
        train_data_mean = evaluate(env_id, policy, episodes=episodes, seed=seed, n_jobs=n_jobs).mean
    return Row.from_result(
        agent, result, seconds, train_steps=train_steps, train_seconds=train_seconds, train_data_mean=train_data_mean
    )


def _parse_budget(text: str) -> tuple[tuple[str | None, str], int]:
    """``[ID:]AGENT=STEPS`` -> ``((id or None, agent), steps)``."""
    try:
        target, steps = text.rsplit("=", 1)
        env_id, _, agent = target.rpartition(":")
        steps = int(steps.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: expected [ID:]AGENT=STEPS, e.g. sb3-ppo=50000") from None
    if agent not in TRAINED_AGENTS:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: agent must be one of {list(TRAINED_AGENTS)}")
    if env_id and env_id not in gym_suite.ENV_IDS:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: unknown id {env_id!r}; ids are {list(gym_suite.ENV_IDS)}")
    if steps < 1:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: steps must be positive")
    return (env_id or None, agent), steps


def _csv_list(choices):
    def parse(text: str) -> list[str]:
        items = [t for t in text.split(",") if t]
        bad = [t for t in items if t not in choices]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"unknown {bad or text!r}; choose from {list(choices)}")
        return items

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=COMMAND,
        description="Random, heuristic and trained agents (SB3 PPO/DQN, RLlib PPO) on every gym-suite id: "
        "a Markdown table and a CSV file.",
    )
    parser.add_argument(
        "--ids",
        type=_csv_list(gym_suite.ENV_IDS),
        default=list(gym_suite.ENV_IDS),
        help="comma-separated ids (default: every registered id)",
    )
    parser.add_argument(
        "--agents",
        type=_csv_list(AGENTS),
        default=list(AGENTS),
        help=f"comma-separated agents (default: {','.join(AGENTS)})",
    )
    parser.add_argument(
        "--episodes",
        type=positive_int,
        default=None,
        help=f"evaluation episodes per agent (default 1000; {QUICK_EPISODES} with --quick)",
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="training seed and first evaluation seed")
    parser.add_argument("--jobs", type=jobs_int, default=-1, help="evaluation processes (-1: every core)")
    parser.add_argument(
        "--budget",
        type=_parse_budget,
        action="append",
        default=[],
        metavar="[ID:]AGENT=STEPS",
        help="training budget override, repeatable, e.g. heartpole-v0:sb3-ppo=300000",
    )
    parser.add_argument("--num-env-runners", type=non_negative_int, default=1, help="RLlib remote env runners")
    parser.add_argument("--no-rllib", action="store_true", help="leave out RLlib PPO even when ray is installed")
    parser.add_argument(
        "--vec-env",
        choices=("native", "dummy"),
        default="native",
        help="what Stable-Baselines3 trains on: the id's native vector env, or DummyVecEnv",
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"smoke run: {QUICK_BUDGET:,} training steps and {QUICK_EPISODES} episodes"
    )
    parser.add_argument("--out-md", default=str(DEFAULT_MD), help="Markdown output ('' for none; default: %(default)s)")
    parser.add_argument("--out-csv", default=str(DEFAULT_CSV), help="CSV output ('' for none; default: %(default)s)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    episodes = args.episodes or (QUICK_EPISODES if args.quick else 1000)
    agents = list(args.agents)
    skipped = []
    if "rllib-ppo" in agents and (args.no_rllib or not ray_available()):
        agents.remove("rllib-ppo")
        skipped.append("RLlib PPO: not run (" + ("--no-rllib" if args.no_rllib else "ray is not installed") + ").")
    if not sb3_available():
        for agent in ("sb3-ppo", "sb3-dqn"):
            if agent in agents:
                agents.remove(agent)
                skipped.append(f"{AGENT_LABELS[agent]}: not run (stable-baselines3 is not installed).")
    budgets = dict(args.budget)
    if args.vec_env == "dummy" and {"sb3-ppo", "sb3-dqn"} & set(agents):
        skipped.append(
            "Stable-Baselines3 trained on DummyVecEnv of scalar envs (--vec-env dummy), not the native vector env."
        )
    start = time.perf_counter()
    rows, notes = run(
        args.ids,
        agents,
        episodes=episodes,
        seed=args.seed,
        n_jobs=args.jobs,
        budgets=budgets,
        quick=args.quick,
        num_env_runners=args.num_env_runners,
        vec_env=args.vec_env,
    )
    total = time.perf_counter() - start
    command = " ".join([COMMAND, *(argv if argv is not None else sys.argv[1:])]).strip()
    markdown = to_markdown(rows, command, notes + skipped, total)
    print(markdown)
    if args.out_md:
        Path(args.out_md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out_md).write_text(markdown, encoding="utf-8")
    if args.out_csv:
        write_csv(rows, args.out_csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
