"""The baselines' published outputs (gym-suite/benchmarks/baselines.py): the table's rows from the runs
(:func:`summarize`) and every file written from them (:func:`publish`): ``docs/baselines.md``, whose
prose is ``_baselines_page.md``'s, ``docs/baselines.csv`` and its package copy, README's headline
table, ``docs/baselines_machine.json`` and the figure. Also the table's vocabulary (policies,
labels, left-out rows), which the grid shares."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import platform
import tempfile
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import _tables  # this folder's helpers (the script's folder is on sys.path)
import numpy as np
from _machine import cpu_name, versions

import gym_suite
from gym_suite.references import references
from gym_suite.score import reference_table_text

ROOT = Path(__file__).resolve().parents[2]  # the repository
DEFAULT_MD = ROOT / "docs" / "baselines.md"
DEFAULT_CSV = ROOT / "docs" / "baselines.csv"
DEFAULT_RUNS = ROOT / "docs" / "baselines_runs.csv"
DEFAULT_PNG = ROOT / "docs" / "img" / "baselines_normalized.png"
DEFAULT_MACHINE = ROOT / "docs" / "baselines_machine.json"
#: The table's reference numbers as package data, for gym_suite.score (written with DEFAULT_CSV).
PACKAGE_TABLE = ROOT / "gym_suite" / "data" / "baselines.csv"
#: The page's prose: sections, each after a line ``<!-- NAME -->``, whose ``$names`` are filled in.
PAGE = Path(__file__).with_name("_baselines_page.md")
COMMAND = "python gym-suite/benchmarks/baselines.py"

#: Policies with no training, in the table's order. ``optimum``: the optimal policy where it is
#: known (or, for heartpole, the dynamic-programming policy); ``best-known``: the best policy
#: known where no optimum is; ``supervised``: push-v0's logistic regression on the training log.
REFERENCES = ("random", "heuristic", "supervised", "best-known", "optimum")
#: Trained agents, in the table's order, with their default number of training seeds.
#: ``sb3-recurrent-ppo``: an agent with memory (an LSTM), trained on the ids whose recipe gives it a
#: budget (example-v1, whose observation hides the position). ``reward-model``: a model of the
#: reward fit on explored steps and planned with the optimum's program
#: (:mod:`gym_suite.training.reward_model`), on the ids whose recipe gives it a budget (push-v1).
TRAINED = {"sb3-ppo": 5, "sb3-dqn": 5, "rllib-ppo": 5, "jax-ppo": 10, "sb3-recurrent-ppo": 5, "reward-model": 5}
POLICIES = (*REFERENCES, *TRAINED)
LABELS = {
    "random": "random",
    "heuristic": "heuristic",
    "supervised": "supervised: logistic regression",
    "best-known": "best known policy",
    "optimum": "optimum",
    "sb3-ppo": "SB3 PPO",
    "sb3-dqn": "SB3 DQN",
    "rllib-ppo": "RLlib PPO",
    "jax-ppo": "JAX PPO (rejax)",
    "sb3-recurrent-ppo": "SB3-contrib RecurrentPPO (LSTM)",
    "reward-model": "reward model + planning",
}
#: (id, policy) pairs the table leaves out, and why: nothing plans them and no run of them counts
#: (the runs already made stay in the runs file).
LEFT_OUT = {
    ("heartpole-v1", "sb3-dqn"): (
        "no SB3 DQN row: the row compares agents trained to the budget at which PPO plateaus (1.2M steps), and "
        "DQN trains at about 330 steps a second on these machines (an hour a seed at that budget); its 100k-step "
        "runs, a budget rather than a plateau (seeds 219 to 409, one at -49,962), stay in the runs file"
    ),
    **dict.fromkeys(
        (("example-v1", "sb3-ppo"), ("example-v1", "sb3-dqn")),
        "no SB3 PPO or DQN row: memoryless, as JAX PPO is, whose row stands for them",
    ),
}
#: The first day whose JAX PPO runs all ran rejax's updates as ``train_ppo``'s three compiled
#: programs (before it, rejax's ``train`` as one; runs are dated by the day, and every run of
#: 2026-11-26 predates the change): older runs are said to be so in the table's notes.
CHUNKED_TRAINING_SINCE = "2026-11-27"
BOOTSTRAP_REPS = 50_000
CONFIDENCE = 0.95
HEADLINE_POLICIES = (*REFERENCES[1:4], *TRAINED, "optimum")  # README's columns: all but random
README_START = "<!-- baselines-headline:start -->"
README_END = "<!-- baselines-headline:end -->"
MACHINE_PACKAGES = (
    "gymnasium", "numpy", "torch", "stable-baselines3", "sb3-contrib", "ray", "jax", "rejax", "rliable", "scikit-learn",
)  # fmt: skip
#: The figure's left edge: 0 is the random policy; intervals that reach further are cut and labelled.
X_LOW = -0.5


def row_label(env_id: str, policy: str) -> str:
    """What the row of ``policy`` on ``env_id`` is called: a reference by its kind (``optimum``,
    ``oracle``, ``grid DP``, ...; :class:`gym_suite.references.Reference`), an agent by its label."""
    found = references(env_id).get(policy)
    if found is None or policy == "supervised":
        return LABELS[policy]
    return found.kind


def current(run: dict[str, str], digests: dict[tuple[str, str], str]) -> bool:
    """Whether ``run`` trained (or played) with its row's settings as they are now (``digests``: the
    script's ``expected_digests``). A run of other settings stays in the runs file, left out of the table."""
    wanted = digests.get((run["env_id"], run["policy"]))
    return wanted is not None and run.get("digest") == wanted


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return format(value, ".6g")
    return str(value)


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Replace ``path`` by ``data`` whole: written to a temporary file beside it, then renamed over it,
    so that a reader sees the old file or the new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# --------------------------------------------------------------------------------------------
# The table's rows
# --------------------------------------------------------------------------------------------


@dataclass
class Summary:
    """One row of the table (``seeds`` 0 for a reference policy); its fields in the CSV's order
    (``note`` excepted, which the Markdown page gives)."""

    env_id: str
    policy: str
    seeds: int
    iqm: float
    ci_low: float
    ci_high: float
    worst_seed: float | None
    diverged: int | None
    normalized: float | None = None
    normalized_ci_low: float | None = None
    normalized_ci_high: float | None = None
    reference: str = ""
    eval_episodes: int = 0
    on_training_data: float | None = None
    train_steps: int | None = None
    train_seconds: float | None = None
    command: str = ""
    note: str = ""


SUMMARY_FIELDS = tuple(name for name in Summary.__dataclass_fields__ if name != "note")


def iqm_interval(seed_scores: np.ndarray, reps: int = BOOTSTRAP_REPS, seed: int = 0) -> tuple[float, float, float]:
    """The IQM of the seeds' scores and its 95 % bootstrap interval, with rliable."""
    from rliable import library as rly
    from rliable import metrics

    scores = {"policy": np.asarray(seed_scores, dtype=float).reshape(-1, 1)}
    # rliable 1.2's StratifiedBootstrap draws its resamples from numpy's global generator, whatever
    # random_state says: seed that one for the call (and put it back) so that the interval repeats
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        with warnings.catch_warnings():  # arch 7 announces a new default generator
            warnings.simplefilter("ignore", FutureWarning)
            point, interval = rly.get_interval_estimates(
                scores,
                lambda x: np.array([metrics.aggregate_iqm(x)]),
                reps=reps,
                confidence_interval_size=CONFIDENCE,
                random_state=np.random.RandomState(seed),
            )
    finally:
        np.random.set_state(saved)
    return float(point["policy"][0]), float(interval["policy"][0, 0]), float(interval["policy"][1, 0])


def metrics_iqm(values: list[float]) -> float:
    from rliable import metrics

    return float(metrics.aggregate_iqm(np.asarray(values, dtype=float).reshape(-1, 1)))


def _reference_row(env_id: str, policy: str, runs: list[dict[str, str]], episodes: int) -> Summary:
    """A reference's row: the mean over the episodes and its 95 % interval (normal approximation)."""
    last = runs[-1]  # a rerun replaces what was there
    mean, half = float(last["mean_return"]), 1.959964 * float(last["std_return"]) / math.sqrt(episodes)
    ref = references(env_id).get(policy)
    training = last["mean_return_on_training_data"]
    return Summary(
        env_id, policy, 0, mean, mean - half, mean + half, None, None, eval_episodes=episodes,
        on_training_data=float(training) if training else None,
        note=ref.note if ref is not None else last.get("note", ""),
        command=ref.command if ref else f"{COMMAND} --ids {env_id} --policies {policy}",
    )  # fmt: skip


def _trained_row(
    env_id: str, policy: str, runs: list[dict[str, str]], episodes: int, reps: int, random: float | None
) -> Summary:
    """A trained agent's row: the IQM over seeds and its interval, the worst seed and the diverged ones."""
    by_seed = {r["train_seed"]: r for r in runs}  # a rerun of a seed replaces it
    scores = np.array([float(r["mean_return"]) for r in by_seed.values()])
    steps = {int(r["train_steps"]) for r in by_seed.values() if r["train_steps"]}
    seconds = [float(r["train_seconds"]) for r in by_seed.values() if r["train_seconds"]]
    training = [float(r["mean_return_on_training_data"]) for r in by_seed.values() if r["mean_return_on_training_data"]]
    seeds = f"{min(map(int, by_seed))}-{max(map(int, by_seed))}"
    return Summary(
        env_id, policy, len(scores), *iqm_interval(scores, reps), float(scores.min()),
        int((scores < random).sum()) if random is not None else None, eval_episodes=episodes,
        on_training_data=float(metrics_iqm(training)) if training else None,
        train_steps=max(steps) if steps else None, train_seconds=float(np.median(seconds)) if seconds else None,
        note=next((r["note"] for r in by_seed.values() if r.get("note")), ""),
        command=f"{COMMAND} --ids {env_id} --policies {policy} --seeds {seeds}",
    )  # fmt: skip


def summarize(
    runs: list[dict[str, str]], episodes: int, reps: int, digests: dict[tuple[str, str], str]
) -> list[Summary]:
    """The table's rows, from the runs that played ``episodes`` evaluation episodes with their
    row's settings as they are now (``digests``)."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in runs:
        if int(r["episodes"]) == episodes and current(r, digests):
            groups.setdefault((r["env_id"], r["policy"]), []).append(r)
    rows: list[Summary] = []
    for env_id in gym_suite.ENV_IDS:
        random_rows = groups.get((env_id, "random"))
        random = float(random_rows[-1]["mean_return"]) if random_rows else None
        for policy in POLICIES:
            if found := groups.get((env_id, policy)):
                if policy in REFERENCES:
                    rows.append(_reference_row(env_id, policy, found, episodes))
                else:
                    rows.append(_trained_row(env_id, policy, found, episodes, reps, random))
    _normalize(rows)
    return rows


def _normalize(rows: list[Summary]) -> None:
    """(score - random) / (optimum - random), the optimum or, failing it, the best known policy."""
    by_key = {(r.env_id, r.policy): r for r in rows}
    for row in rows:
        random_row = by_key.get((row.env_id, "random"))
        top = by_key.get((row.env_id, "optimum")) or by_key.get((row.env_id, "best-known"))
        if random_row is None or top is None or top.iqm == random_row.iqm:
            continue
        span = top.iqm - random_row.iqm
        label = row_label(top.env_id, top.policy)
        row.reference = f"{label} ({top.note})" if top.note else label
        row.normalized = (row.iqm - random_row.iqm) / span
        row.normalized_ci_low = (row.ci_low - random_row.iqm) / span
        row.normalized_ci_high = (row.ci_high - random_row.iqm) / span


# --------------------------------------------------------------------------------------------
# The outputs
# --------------------------------------------------------------------------------------------


def publish(
    rows: list[Summary], runs: list[dict[str, str]], episodes: int, digests: dict[tuple[str, str], str],
    out_md: str, out_csv: str, out_png: str, readme: str, out_machine: str,
) -> None:  # fmt: skip
    """Print the page and write every output whose path is not ``''``: the page, the CSV (and, for the
    repository's CSV, its package copy and README's headline table), the machine record, the figure."""
    machine = machine_record([r for r in runs if int(r["episodes"]) == episodes])
    markdown = to_markdown(rows, machine, notes(rows, runs, digests))
    print(markdown)
    if out_md:
        write_atomic(out_md, markdown)
    if out_csv:
        write_csv(rows, out_csv)
        if Path(out_csv).resolve() == DEFAULT_CSV.resolve():  # the package's copy for gym_suite.score
            write_atomic(PACKAGE_TABLE, reference_table_text(Path(out_csv).read_text(encoding="utf-8")))
        if readme and Path(readme).exists():
            with open(out_csv, newline="", encoding="utf-8") as f:
                update_readme(readme, list(csv.DictReader(f)))
    if out_machine:
        write_atomic(out_machine, json.dumps(machine, indent=2) + "\n")
    if out_png and any(r.seeds for r in rows):
        plot_normalized(rows, out_png)


def write_csv(rows: list[Summary], path: str | os.PathLike) -> None:
    """The table as CSV, the file replaced whole."""
    f = io.StringIO(newline="")
    writer = csv.DictWriter(f, SUMMARY_FIELDS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows({name: _cell(value) for name, value in asdict(r).items()} for r in rows)
    write_atomic(path, f.getvalue())


def _num(x: float | None, digits: int = 2) -> str:
    if x is None:
        return ""
    if abs(x) >= 10_000:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def _steps(steps: float) -> str:
    """A training budget in few characters: 20k, 1.2M."""
    if steps >= 1e6:
        return f"{steps / 1e6:.1f}M".replace(".0M", "M")
    return f"{steps / 1e3:.0f}k"


def page(name: str, **values: Any) -> str:
    """The section ``name`` of the page's prose (:data:`PAGE`), its ``$names`` filled in with ``values``."""
    return _tables.page(PAGE, name, command=COMMAND, **values)


def _table_line(r: Summary, label: str) -> str:
    norm = "" if r.normalized is None else f"{r.normalized:.3f} [{r.normalized_ci_low:.3f}, {r.normalized_ci_high:.3f}]"
    return (
        f"| `{r.env_id}` | {label} | {r.seeds or ''} | {_num(r.iqm)} [{_num(r.ci_low)}, {_num(r.ci_high)}] | "
        f"{_num(r.worst_seed)} | {'' if r.diverged is None else r.diverged} | {norm} | {_num(r.on_training_data)} | "
        f"{'' if r.train_steps is None else f'{r.train_steps:,}'} | "
        f"{'' if r.train_seconds is None else f'{r.train_seconds:.0f}'} |"
    )


def to_markdown(rows: list[Summary], machine: dict[str, Any], notes: list[str]) -> str:
    episodes = "/".join(map(str, sorted({r.eval_episodes for r in rows})))
    cpus, reps = ", ".join(machine["cpus"]), f"{BOOTSTRAP_REPS:,}"
    lines = [page("page", cpus=cpus, versions=machine["versions"], episodes=episodes, reps=reps)]
    described = []  # what each reference row is: under the table, so that its rows stay one line each
    for r in rows:
        label = row_label(r.env_id, r.policy)
        if r.note and r.policy in REFERENCES:
            described.append(f"- `{r.env_id}` {label}: {r.note} (`{r.command}`)")
        lines.append(_table_line(r, label))
    if described:
        lines += ["", "The reference rows:", "", *described]
    if notes:
        lines += ["", "Notes:", "", *[f"- {note}" for note in notes]]
    lines += ["", page("end")]
    return "\n".join(lines) + "\n"


def _headline_cell(r: dict[str, str] | None, env_id: str, policy: str, references_named: set[str]) -> str:
    if r is None or not r["normalized"]:
        return ""
    if int(r["seeds"] or 0) > 0:
        diverged = f", {r['diverged']} diverged" if r["diverged"] not in ("", "0") else ""
        steps = f", {_steps(float(r['train_steps']))} steps" if r.get("train_steps") else ""
        return (
            f"{float(r['normalized']):.2f} [{float(r['normalized_ci_low']):.2f}, "
            f"{float(r['normalized_ci_high']):.2f}] ({r['seeds']} seeds{steps}{diverged})"
        )
    if policy in references_named:  # what the reference is: an optimum, an oracle, the best policy known
        return f"{float(r['normalized']):.2f} ({row_label(env_id, policy)})"
    return f"{float(r['normalized']):.2f}"


def headline_markdown(table: list[dict[str, str]]) -> str:
    """README's table: the normalized score of every id and policy, from ``docs/baselines.csv``'s rows.

    Trained policies: the normalized IQM over seeds, its 95 % interval, the seeds and the
    training steps a seed (diverged seeds counted); references: the normalized mean, and for the
    reference the table is normalized by, what it is (optimum, oracle, grid DP).
    """
    by_key = {(r["env_id"], r["policy"]): r for r in table}
    policies = [p for p in HEADLINE_POLICIES if any(r["policy"] == p for r in table)]
    ids = [i for i in gym_suite.ENV_IDS if any(r["env_id"] == i for r in table)]
    header = {"optimum": "reference", "best-known": "searched policy"}
    lines = [
        "| id | " + " | ".join(header.get(p, LABELS[p].split(":")[0]) for p in policies) + " |",
        "|---|" + "---:|" * len(policies),
    ]
    for env_id in ids:
        cells = [_headline_cell(by_key.get((env_id, p)), env_id, p, set(header)) for p in policies]
        lines.append(f"| `{env_id}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def update_readme(path: str | os.PathLike, table: list[dict[str, str]]) -> bool:
    """Replace README's headline table between its markers; False when it has none."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return False
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    write_atomic(path, head + README_START + "\n" + headline_markdown(table) + README_END + tail)
    return True


def machine_record(runs: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "cpus": sorted({r["cpu"] for r in runs if r.get("cpu")}) or [cpu_name()],
        "dates": sorted({r["date"] for r in runs if r.get("date")}),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "versions": versions(MACHINE_PACKAGES),
    }


def plot_normalized(rows: list[Summary], path: str | os.PathLike) -> None:
    """rliable's interval plot: the normalized IQM and its interval, per id (panels) and policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = [i for i in gym_suite.ENV_IDS if any(r.env_id == i and r.seeds for r in rows)]
    trained = [p for p in TRAINED if any(r.policy == p and r.seeds for r in rows)]
    fig, axes = plt.subplots(
        1, len(ids), figsize=(3.2 * len(ids), 0.5 * len(trained) + 1.6), sharey=True, squeeze=False
    )
    colors = dict(zip(TRAINED, ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860")))
    for ax, env_id in zip(axes[0], ids):
        for y, policy in enumerate(trained):
            r = next((r for r in rows if r.env_id == env_id and r.policy == policy and r.seeds), None)
            if r is None or r.normalized is None:
                continue
            low = max(r.normalized_ci_low, X_LOW)  # a diverged seed's interval runs far left: cut, and say where
            ax.barh(y, r.normalized_ci_high - low, left=low, height=0.6, color=colors[policy], alpha=0.75)
            if r.normalized_ci_low < X_LOW:
                ax.annotate(
                    f"to {r.normalized_ci_low:,.1f}", (X_LOW, y), xytext=(2, 9), textcoords="offset points", fontsize=7
                )
            ax.vlines(max(r.normalized, X_LOW), y - 0.3, y + 0.3, color="black", linewidth=1.5)
        ax.set_xlim(X_LOW, 1.1)
        ax.axvline(1.0, color="grey", linestyle="--", linewidth=0.8)
        ax.axvline(0.0, color="grey", linestyle=":", linewidth=0.8)
        ax.set_title(env_id, fontsize=10)
        ax.set_xlabel("normalized IQM")
        ax.set_yticks(range(len(trained)), [LABELS[p] for p in trained])
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle("Normalized score over training seeds: IQM (line) and 95 % bootstrap interval (bar)", fontsize=10)
    fig.tight_layout()
    picture = io.BytesIO()
    fig.savefig(picture, dpi=110, format="png")
    plt.close(fig)
    write_atomic(path, picture.getvalue())


# --------------------------------------------------------------------------------------------
# The notes under the table
# --------------------------------------------------------------------------------------------


def notes(rows: list[Summary], runs: list[dict[str, str]], digests: dict[tuple[str, str], str]) -> list[str]:
    """The notes the rows call for, in the page's order."""
    ids = {r.env_id for r in rows}
    found = [push_note()] if "push-v0" in ids else []
    found += [push_v1_note()] if "push-v1" in ids else []
    found += [
        f"`{env_id}`: no DQN row, the action space is continuous."
        for env_id in ("target-v0", "target-v1")
        if env_id in ids
    ]
    for env_id in ("push-v1", "target-v1"):
        budgets = {r.policy: r.train_steps for r in rows if r.env_id == env_id and r.train_steps}
        if {"sb3-ppo", "jax-ppo"} <= set(budgets):
            found.append(
                page("note:same-budget", env_id=env_id, sb3=_steps(budgets["sb3-ppo"]), jax=_steps(budgets["jax-ppo"]))
            )
    found += _jax_chunked_note(runs, digests)
    for (env_id, _policy), why in LEFT_OUT.items():
        if env_id in ids and f"`{env_id}`: {why}." not in found:
            found.append(f"`{env_id}`: {why}.")
    found += [page("note:example-v1")] if "example-v1" in ids else []
    if "heartpole-v1" in ids:
        found.append(
            heartpole_v1_note(sum(r.seeds for r in rows if (r.env_id, r.policy) == ("heartpole-v1", "sb3-ppo")))
        )
    for r in rows:
        if 0 < r.seeds < TRAINED.get(r.policy, 0):
            found.append(
                f"`{r.env_id}` {LABELS[r.policy]}: {r.seeds} training seeds of the {TRAINED[r.policy]} the row "
                f"should have (the others had not finished); `{r.command.split(' --seeds')[0]} --seeds "
                f"0-{TRAINED[r.policy] - 1}` runs the rest."
            )
    return found


def _jax_chunked_note(runs: list[dict[str, str]], digests: dict[tuple[str, str], str]) -> list[str]:
    """The ids whose JAX PPO row is of runs made before ``train_ppo``'s chunked programs, if any."""
    jax_runs = [r for r in runs if r["policy"] == "jax-ppo"]
    chunked = {r["env_id"] for r in jax_runs if r.get("date", "") >= CHUNKED_TRAINING_SINCE}
    earlier = {r["env_id"] for r in jax_runs if r.get("date", "") < CHUNKED_TRAINING_SINCE}
    single = sorted({r["env_id"] for r in jax_runs if current(r, digests)} & earlier - chunked)
    if not single:
        return []
    named = {"single": single, "rerun": sorted(chunked & earlier)}
    named = {key: ", ".join(f"`{env_id}`" for env_id in ids) for key, ids in named.items()}
    return [page("note:jax-chunked", since=CHUNKED_TRAINING_SINCE, **named)]


def push_note() -> str:
    """The Bayes-optimal accuracy of push-v0's logs, from the generator's open probabilities: in
    expectation over the labels, and on the labels each log happens to hold."""
    from gym_suite.envs.push_log import load_log

    def ret(accuracy: float) -> str:
        return f"{100 * (2 * accuracy - 1):.2f}"

    parts = []
    for split in ("train", "test"):
        log = load_log(split=split)
        p_open, opened = np.asarray(log.p_open), np.asarray(log.labels) == 1
        right = np.maximum(p_open, 1.0 - p_open)  # the Bayes-optimal decision's chance to be right
        expected = float(right.mean())
        spread = float(np.sqrt((right * (1.0 - right)).sum()) / len(right))  # s.d. of the realized accuracy
        realized = float(((p_open >= 0.5) == opened).mean())
        parts.append(
            f"the {split} log ({len(right):,} rows): {expected:.1%} in expectation (return {ret(expected)} per "
            f"100), {realized:.1%} on its drawn labels (return {ret(realized)}; the labels' luck has a standard "
            f"deviation of {200 * spread:.2f})"
        )
    return page("note:push-v0", parts="; on ".join(parts))


def push_v1_note() -> str:
    """push-v1's return, and its hindsight bound on the test log (for context, above the optimum)."""
    from gym_suite.references.push_v1_optimum import exact_table

    table = exact_table("test", 2)
    return page("note:push-v1", optimum=f"{table['optimum']:.3f}", hindsight=f"{table['hindsight']:.3f}")


def heartpole_v1_note(sb3_seeds: int) -> str:
    """heartpole-v1: the recipe both PPOs share (``sb3_seeds``: the SB3 PPO row's seeds), what is known
    of SB3 PPO with it beyond the row, and the best known policy paired against the previous one."""
    from gym_suite.references import heartpole_v1_reference as reference

    seeds = np.arange(1000)
    uniforms = reference.episode_uniforms(seeds)
    new = reference.play(reference.time_aware_policy(*reference.BEST_TIME_AWARE), seeds, uniforms)["return"]
    old = reference.play(reference.threshold_policy(*reference.BEST_THRESHOLDS), seeds, uniforms)["return"]
    diff = new - old
    parameters = zip(reference.TIME_AWARE_NAMES, reference.BEST_TIME_AWARE)
    record = json.loads((ROOT / "docs" / "training" / "heartpole_v1_jax_vs_sb3.json").read_text(encoding="utf-8"))
    sb3 = page(
        "note:heartpole-v1-sb3",
        budget=f"{record['budget'] / 1e6:.1f}M",
        seeds=", ".join(str(r["seed"]) for r in record["sb3"]),
        finals=", ".join(f"{run['final'][0]:.1f}" for run in record["sb3"]),
    )
    return page(
        "note:heartpole-v1",
        sb3=sb3 if sb3_seeds else page("note:heartpole-v1-no-sb3", sb3=sb3),
        parameters=", ".join(f"{name} {value:.3g}" for name, value in parameters),
        gain=f"{diff.mean():+.2f}",
        error=f"{diff.std(ddof=1) / np.sqrt(len(diff)):.2f}",
        old=f"{old.mean():.2f}",
    )
