"""The documentation's tables that list ids, made from the code and the results files.

A page keeps each table between ``<!-- generated:NAME -->`` and ``<!-- end:NAME -->``: the copy in
the repository reads right on GitHub, the site is built with a fresh one
(``docs/_scripts/gen_tables.py`` at build time), and ``tests/test_doc_tables.py`` fails when the
copy differs from what the code makes. Regenerate the copies with
``python docs/_scripts/doc_tables.py``.
"""

from __future__ import annotations

import csv
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
from gym_suite.play import controls_help  # noqa: E402


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


#: Every generated table: its name, the page that holds it, the function that makes it.
TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "jax-ids": ("training/jax.md", jax_ids),
    "ppo-measured": ("training/jax.md", ppo_measured),
    "play-controls": ("quickstart.md", play_controls),
}


def block_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- generated:{re.escape(name)} -->\n)(.*?)(<!-- end:{re.escape(name)} -->)", re.S)


def fill(text: str, page: str) -> str:
    """``text`` (the page ``page``, relative to docs/) with every generated table made afresh.
    Raises ``ValueError`` when a table's markers are missing."""
    for name, (table_page, make) in TABLES.items():
        if table_page != page:
            continue
        block = block_pattern(name).search(text)
        if block is None:
            raise ValueError(f"docs/{page} has no <!-- generated:{name} --> ... <!-- end:{name} --> block")
        start, end = block.span(2)
        text = text[:start] + make() + "\n" + text[end:]
    return text


def pages() -> list[str]:
    return sorted({page for page, _ in TABLES.values()})


def main() -> None:
    """Rewrite the copies in docs/ (``python docs/_scripts/doc_tables.py``)."""
    for page in pages():
        path = DOCS / page
        path.write_text(fill(path.read_text(encoding="utf-8"), page), encoding="utf-8")


if __name__ == "__main__":
    main()
