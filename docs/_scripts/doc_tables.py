"""The tables of README and the documentation that list ids, made from the code and the results files.

A page keeps each table between ``<!-- generated:NAME -->`` and ``<!-- end:NAME -->``: the copy in
the repository reads right on GitHub, the site is built with a fresh one
(``docs/_scripts/gen_tables.py`` at build time), and ``tests/test_docs_tables.py`` fails when the
copy differs from what the code makes. Regenerate the copies with
``python docs/_scripts/doc_tables.py``.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
if str(ROOT) not in sys.path:  # run from a checkout: its gym_suite
    sys.path.insert(0, str(ROOT))

import gymnasium  # noqa: E402
from gymnasium import spaces  # noqa: E402

import gym_suite  # noqa: E402
from gym_suite import _jax_cache as jax_cache  # noqa: E402
from gym_suite.play import controls_help  # noqa: E402


def id_table(link: str = "") -> str:
    """The registry's ids and summaries, each id linked to ``link.format(id)`` when given."""
    lines = ["| id | what it is |", "|---|---|"]
    for spec in gym_suite.SPECS:
        name = f"[`{spec.id}`]({link.format(spec.id)})" if link else f"`{spec.id}`"
        lines.append(f"| {name} | {spec.summary} |")
    return "\n".join(lines)


def gallery(images: str = "img/", link: str = "environments/{}.md") -> str:
    """Every id's picture (``docs/img/<id>.gif``, under ``images``) over its id, linked to
    ``link.format(id)``, side by side (the ``env-gallery`` style of ``docs/stylesheets/extra.css``)."""
    lines = ['<div class="env-gallery" markdown>']
    for spec in gym_suite.SPECS:
        if (DOCS / "img" / f"{spec.id}.gif").exists():
            lines += [
                "",
                '<figure markdown="span">',
                f"[![{spec.id}: one episode of the heuristic]({images}{spec.id}.gif){{ width=200 loading=lazy }}]"
                f"({link.format(spec.id)})",
                f"<figcaption>{spec.id}</figcaption>",
                "</figure>",
            ]
    return "\n".join([*lines, "", "</div>"])


def jax_ids() -> str:
    """The ``gym_suite_jax/<id>`` Gymnasium ids, their numpy ids, actions and the rejax
    algorithms their actions fit (DQN discrete, SAC and TD3 continuous, PPO both)."""
    lines = ["| Id | Numpy id | Actions | rejax algorithms |", "|---|---|---|---|"]
    for env_id in gym_suite.ENV_IDS:
        with warnings.catch_warnings():  # Gymnasium's note that a v0 has a v1
            warnings.simplefilter("ignore", DeprecationWarning)
            env = gymnasium.make(f"gym_suite:{env_id}")
        try:
            action_space = env.action_space
        finally:
            env.close()
        if isinstance(action_space, spaces.Discrete):
            kind, algorithms = f"discrete ({int(action_space.n)})", "PPO, DQN"
        else:
            kind, algorithms = f"continuous {tuple(action_space.shape)}", "PPO, SAC, TD3"
        lines.append(f"| `gym_suite_jax/{env_id}` | `{env_id}` | {kind} | {algorithms} |")
    return "\n".join(lines)


def play_controls() -> str:
    """``gym-suite play --help``'s controls as a table, ids with the same controls on one row."""
    rows: list[tuple[list[str], str]] = []
    for line in controls_help(gym_suite.ENV_IDS).splitlines()[1:]:
        if line.strip().startswith("any id"):
            name, legend = "any id", line.strip()[len("any id") :].strip()
        else:
            name, legend = line.split(maxsplit=1)
            name = f"`{name}`"
        legend = re.sub(r"\s{2,}", ", ", legend.strip())
        if rows and rows[-1][1] == legend:
            rows[-1][0].append(name)
        else:
            rows.append(([name], legend))
    lines = ["| id | controls |", "|---|---|"]
    lines += [f"| {', '.join(names)} | {legend} |" for names, legend in rows]
    return "\n".join(lines)


def _baselines() -> dict[tuple[str, str], dict[str, str]]:
    with (DOCS / "baselines.csv").open(encoding="utf-8", newline="") as f:
        return {(row["env_id"], row["policy"]): row for row in csv.DictReader(f)}


def ppo_measured() -> str:
    """JAX PPO and Stable-Baselines3 PPO on every id, from ``docs/baselines.csv``: budget, return
    (IQM over training seeds, normalized), the table's train time."""
    table = _baselines()
    lines = [
        "| id | JAX PPO steps | JAX PPO return (normalized, seeds) | JAX PPO time (s) "
        "| SB3 PPO steps | SB3 PPO return (normalized, seeds) | SB3 PPO time (s) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for env_id in gym_suite.ENV_IDS:
        cells = [f"`{env_id}`"]
        for policy in ("jax-ppo", "sb3-ppo"):
            row = table.get((env_id, policy))
            if row is None:
                cells += ["", "", ""]
                continue
            cells += [
                f"{int(float(row['train_steps'])):,}",
                f"{float(row['iqm']):.2f} ({float(row['normalized']):.2f}, {row['seeds']})",
                f"{float(row['train_seconds']):,.0f}",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: The run of ``gym-suite/benchmarks/train_jax_vs_sb3.py`` that the pages report.
JAX_VS_SB3 = DOCS / "training" / "heartpole_v1_jax_vs_sb3.json"


def _jax_vs_sb3_script():
    """``gym-suite/benchmarks/train_jax_vs_sb3.py`` as a module (its report is the page's)."""
    folder = ROOT / "gym-suite" / "benchmarks"
    if str(folder) not in sys.path:  # its folder's helper (_machine), as when it runs
        sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location("train_jax_vs_sb3", folder / "train_jax_vs_sb3.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def jax_vs_sb3_run() -> str:
    """The saved run's report, as the script prints it (``--from-json``)."""
    return _jax_vs_sb3_script().report(json.loads(JAX_VS_SB3.read_text(encoding="utf-8"))).strip()


def jax_vs_sb3_summary() -> str:
    """The saved run in brief: budgets, returns, wall times and times to the target, with the
    ratios seed by seed (SB3's seed over JAX's seed of the same number) and of the medians."""
    bench = _jax_vs_sb3_script()
    out = json.loads(JAX_VS_SB3.read_text(encoding="utf-8"))
    jax, sb3, target = out["jax"], out["sb3"], out["target"]
    seeds = ", ".join(map(str, out["seeds"]))

    def span(values: list[float], unit: str = " s") -> str:
        return f"{min(values):.1f} to {max(values):.1f}{unit}" if values else "-"

    def ratios(pairs: list[tuple[float | None, float | None]]) -> str:
        found = [b / a for a, b in pairs if a is not None and b is not None]
        sides = [[a for a, _ in pairs if a is not None], [b for _, b in pairs if b is not None]]
        median = bench._median(sides[1]) / bench._median(sides[0]) if all(sides) else float("nan")
        return f"{span(found, 'x')} (medians: {median:.1f}x)" if found else "-"

    def reached(entry: dict) -> float | None:
        point = bench.first_reached(entry["points"], target)
        return point["seconds"] if point else None

    def to_target(side: list[dict]) -> str:
        times = [reached(e) for e in side]
        got = [t for t in times if t is not None]
        return f"{span(got)} ({len(got)} of {len(side)} seeds)"

    lines = [
        "| | JAX PPO (rejax) | SB3 PPO (SuiteVecEnv) | SB3 / JAX |",
        "|---|---:|---:|---:|",
        f"| budget (env steps) | {jax[0]['steps']:,} | {sb3[0]['steps']:,} | |",
        f"| greedy return, seeds {seeds} ({out['episodes']:,} episodes) | "
        + " | ".join(", ".join(f"{e['final'][0]:.2f}" for e in side) for side in (jax, sb3))
        + " | |",
        "| wall time by seed (JAX: compiling included) | "
        + f"{span([e['wall'] for e in jax])} | {span([e['wall'] for e in sb3])} | "
        + ratios([(j["wall"], s["wall"]) for j, s in zip(jax, sb3)])
        + " |",
        f"| time to a curve return of {target:g}, by seed | {to_target(jax)} | {to_target(sb3)} | "
        + ratios([(reached(j), reached(s)) for j, s in zip(jax, sb3)])
        + " |",
    ]
    many = out.get("jax_vmapped")
    if many:
        per_seed = many["wall"] / len(many["seeds"])
        lines.append(
            f"| {len(many['seeds'])} seeds in one vmapped run | {many['wall']:.1f} s, {per_seed:.1f} s a seed "
            f"(returns {min(many['finals']):.1f} to {max(many['finals']):.1f}) | | "
            f"{bench._median([e['wall'] for e in sb3]) / per_seed:.1f}x a seed |"
        )
    cache = out.get("jax_cache")
    compiled = (
        "every JAX run compiled afresh"
        if cache is None or cache.lower() in jax_cache.OFF
        else "JAX's compilation cache on"
    )
    lines += [
        "",
        f"Measured {out['date'][:10]} on {out['machine']}, load average {out['load_start']} at the start and "
        f"{out['load_end']} at the end (2 fills the two cores); {compiled}.",
    ]
    return "\n".join(lines)


#: Every generated table: its name, the file that holds it (from the repository's root), the
#: function that makes it.
TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "ids": ("README.md", id_table),
    "home-ids": ("docs/index.md", lambda: id_table("environments/{}.md")),
    "home-gallery": ("docs/index.md", gallery),
    "jax-ids": ("docs/training/jax.md", jax_ids),
    "ppo-measured": ("docs/training/jax.md", ppo_measured),
    "jax-vs-sb3": ("docs/training/jax.md", jax_vs_sb3_summary),
    "jax-vs-sb3-run": ("docs/training-speed.md", jax_vs_sb3_run),
    "play-controls": ("docs/quickstart.md", play_controls),
}


def block_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- generated:{re.escape(name)} -->\n)(.*?)(<!-- end:{re.escape(name)} -->)", re.S)


def fill(text: str, page: str) -> str:
    """``text`` (the file ``page``, from the repository's root) with every generated table made
    afresh. Raises ``ValueError`` when a table's markers are missing."""
    for name, (table_page, make) in TABLES.items():
        if table_page != page:
            continue
        block = block_pattern(name).search(text)
        if block is None:
            raise ValueError(f"{page} has no <!-- generated:{name} --> ... <!-- end:{name} --> block")
        start, end = block.span(2)
        text = text[:start] + make() + "\n" + text[end:]
    return text


def pages() -> list[str]:
    return sorted({page for page, _ in TABLES.values()})


def main() -> None:
    """Rewrite the copies (``python docs/_scripts/doc_tables.py``)."""
    for page in pages():
        path = ROOT / page
        path.write_text(fill(path.read_text(encoding="utf-8"), page), encoding="utf-8")


if __name__ == "__main__":
    main()
