"""Generate one page per environment at build time (mkdocs-gen-files), as Gymnasium's env pages.

Everything comes from the code: the registry (``gym_suite.SPECS``: id, summary, step limit), the
class of each id's entry point (its docstring, whose sections are Description, Action Space,
Observation Space, Rewards, Starting State, Episode End, Arguments and Version History), and an
instance made with ``gymnasium.make`` (the spaces and render modes). The picture is
``docs/img/<id>.gif`` when it exists; the id's rows of the baselines table (``docs/baselines.csv``)
follow the manual, then the notes written by hand for the id, if any (``docs/env-notes/<id>.md``:
tuning, reasons, analyses).
"""

from __future__ import annotations

import csv
import importlib
import inspect
import sys
from pathlib import Path

import gymnasium
import mkdocs_gen_files

import gym_suite

DOCS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(DOCS / "_scripts"))
from doc_tables import gallery  # noqa: E402
from griffe_roles import markdown_docstring  # noqa: E402


def entry_point_class(env_id: str) -> type:
    """The class the registry's entry point names (``module:Class``)."""
    entry_point = gymnasium.spec(env_id).entry_point
    if not isinstance(entry_point, str):
        return entry_point
    module, _, name = entry_point.partition(":")
    return getattr(importlib.import_module(module), name)


def env_docstring(cls: type, env_id: str) -> str:
    doc = inspect.cleandoc(cls.__doc__ or "")
    if not doc:
        raise ValueError(f"{cls.__module__}.{cls.__qualname__} ({env_id}) has no docstring")
    return markdown_docstring(doc)


def code(text: object) -> str:
    return "`" + str(text).replace("|", "\\|") + "`"


def step_limit(spec: gym_suite.Spec) -> str:
    if spec.max_episode_steps is None:
        return "none registered (the episode ends by itself; see Episode End)"
    return f"{spec.max_episode_steps:,} steps (`TimeLimit`; `max_episode_steps=N` changes it)"


def baselines(env_id: str) -> str:
    """The id's rows of ``docs/baselines.csv``, as the Baselines page shows them."""
    with (DOCS / "baselines.csv").open(encoding="utf-8", newline="") as f:
        rows = [row for row in csv.DictReader(f) if row["env_id"] == env_id]
    if not rows:
        return (
            f"## Baselines\n\n{env_id} has no rows in the baselines table yet "
            f"(`python gym-suite/benchmarks/baselines.py --ids {env_id}` scores it)."
        )

    def interval(row: dict[str, str], key: str, low: str, high: str, digits: int) -> str:
        return f"{float(row[key]):.{digits}f} [{float(row[low]):.{digits}f}, {float(row[high]):.{digits}f}]"

    lines = [
        "## Baselines",
        "",
        f"The id's rows of the [baselines table](../baselines.md), on its {int(rows[0]['eval_episodes']):,} "
        "evaluation episodes: references give the mean return, trained policies the interquartile mean "
        f"over their training seeds, each with its 95 % interval. Normalized by the {rows[0]['reference']}.",
        "",
        "| policy | training seeds | return | normalized | budget (steps) |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        seeds = row["seeds"] if row["seeds"] not in ("", "0") else ""
        steps = f"{int(float(row['train_steps'])):,}" if row["train_steps"] else ""
        return_ = interval(row, "iqm", "ci_low", "ci_high", 2)
        normalized = interval(row, "normalized", "normalized_ci_low", "normalized_ci_high", 3)
        lines.append(f"| `{row['policy']}` | {seeds} | {return_} | {normalized} | {steps} |")
    return "\n".join(lines)


def env_page(spec: gym_suite.Spec) -> str:
    cls = entry_point_class(spec.id)
    env = gymnasium.make(f"gym_suite:{spec.id}")
    try:
        action_space, observation_space = env.action_space, env.observation_space
        render_modes = env.unwrapped.metadata.get("render_modes", [])
    finally:
        env.close()
    vector = gymnasium.spec(spec.id).vector_entry_point
    lines = [
        f"# {spec.id}",
        "",
        f"*{spec.summary}*",
        "",
    ]
    if (DOCS / "img" / f"{spec.id}.gif").exists():
        lines += [f"![{spec.id}: one episode of the heuristic](../img/{spec.id}.gif){{ loading=lazy }}", ""]
    lines += [
        f'| Import | `gymnasium.make("gym_suite:{spec.id}")` |',
        "|---|---|",
        f'| Vector env | `gymnasium.make_vec("gym_suite:{spec.id}", num_envs=N)` (native numpy: {code(vector)}) |',
        f"| Class | {code(gymnasium.spec(spec.id).entry_point)} |",
        f"| Action space | {code(action_space)} |",
        f"| Observation space | {code(observation_space)} |",
        f"| Step limit | {step_limit(spec)} |",
        f"| Render modes | {', '.join(code(m) for m in render_modes) or 'none'} |",
        "",
        "```python",
        "import gymnasium",
        "",
        f'env = gymnasium.make("gym_suite:{spec.id}")',
        "obs, info = env.reset(seed=0)",
        "obs, reward, terminated, truncated, info = env.step(env.action_space.sample())",
        "```",
        "",
        env_docstring(cls, spec.id),
        "",
        baselines(spec.id),
        "",
    ]
    notes = DOCS / "env-notes" / f"{spec.id}.md"
    if notes.exists():
        lines += [notes.read_text(encoding="utf-8").rstrip(), ""]
    return "\n".join(lines)


def index_page() -> str:
    lines = [
        "# Environments",
        "",
        "Every id is registered with Gymnasium by `import gym_suite` (or through the `gym_suite:` prefix of the id),",
        "and has a native numpy vector env behind `gymnasium.make_vec`. These pages are generated from the",
        "registry and the environments' docstrings when the site is built.",
        "",
        "| id | | step limit |",
        "|---|---|---:|",
    ]
    for spec in gym_suite.SPECS:
        limit = f"{spec.max_episode_steps:,}" if spec.max_episode_steps else "none"
        lines.append(f"| [{spec.id}]({spec.id}.md) | {spec.summary} | {limit} |")
    lines.append("")
    if any((DOCS / "img" / f"{spec.id}.gif").exists() for spec in gym_suite.SPECS):
        lines.append(gallery("../img/", "{}.md"))  # a labelled gallery: each picture over its id
    lines += [
        "",
        "The pictures are one seeded episode of each environment's heuristic, regenerated with",
        '`pip install -e ".[render]" && python gym-suite/tools/record_gifs.py --out docs/img`.',
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    with mkdocs_gen_files.open("environments/index.md", "w") as page:
        page.write(index_page())
    nav = ["* [Environments](index.md)"]
    for spec in gym_suite.SPECS:
        with mkdocs_gen_files.open(f"environments/{spec.id}.md", "w") as page:
            page.write(env_page(spec))
        nav.append(f"* [{spec.id}]({spec.id}.md)")
    with mkdocs_gen_files.open("environments/SUMMARY.md", "w") as summary:
        summary.write("\n".join(nav) + "\n")


main()
