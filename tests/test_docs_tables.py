"""README's and the documentation's generated tables (docs/_scripts/doc_tables.py) are what the code makes today
and name every registered id; the environment notes' tables are what the references compute."""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

import gymnasium
import pytest

import gym_suite
from gym_suite.play import KEYS, controls_help

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_scripts"))
import doc_tables  # noqa: E402


@pytest.mark.parametrize("page", doc_tables.pages())
def test_the_pages_copies_are_what_the_code_makes(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert doc_tables.fill(text, page) == text, (
        f"{page}'s generated tables are out of date: run python docs/_scripts/doc_tables.py"
    )


def test_fill_replaces_a_stale_table_and_names_a_missing_block():
    stale = (
        "# JAX\n\n<!-- generated:jax-ids -->\n| old |\n<!-- end:jax-ids -->\n\n<!-- generated:ppo-measured -->\n"
        "<!-- end:ppo-measured -->\n<!-- generated:jax-vs-sb3 -->\n<!-- end:jax-vs-sb3 -->\n"
    )
    filled = doc_tables.fill(stale, "docs/training/jax.md")
    assert "| old |" not in filled and "`gym_suite_jax/target-v1`" in filled
    with pytest.raises(ValueError, match="generated:ppo-measured"):
        doc_tables.fill("# JAX\n\n<!-- generated:jax-ids -->\n<!-- end:jax-ids -->\n", "docs/training/jax.md")


def test_the_jax_against_sb3_tables_are_the_saved_runs():
    """Both pages' JAX-against-SB3 figures are the saved run's (docs/training/heartpole_v1_jax_vs_sb3.json)."""
    import json

    out = json.loads((ROOT / "docs" / "training" / "heartpole_v1_jax_vs_sb3.json").read_text(encoding="utf-8"))
    walls = [e["wall"] for e in out["jax"]], [e["wall"] for e in out["sb3"]]
    ratio = sorted(walls[1])[len(walls[1]) // 2] / sorted(walls[0])[len(walls[0]) // 2]
    summary = doc_tables.jax_vs_sb3_summary()
    assert f"(medians: {ratio:.1f}x)" in summary and f"{min(walls[1]):.1f} to {max(walls[1]):.1f} s" in summary
    assert f"SB3 / JAX = {ratio:.1f}x" in doc_tables.jax_vs_sb3_run()
    assert out["jax_cache"] == "off", "the published run compiles afresh (a user's first run)"


def table_rows(page: str, name: str) -> list[str]:
    text = (ROOT / page).read_text(encoding="utf-8")
    block = doc_tables.block_pattern(name).search(text)
    assert block, f"docs/{page} has no {name} block"
    return [line for line in block.group(2).splitlines() if line.startswith("| ")][1:]


@pytest.mark.parametrize(
    ("page", "name", "ids"),
    [
        ("README.md", "ids", [spec.id for spec in gym_suite.SPECS]),
        ("docs/index.md", "home-ids", [spec.id for spec in gym_suite.SPECS]),
        ("docs/training/jax.md", "ppo-measured", list(gym_suite.ENV_IDS)),
        ("docs/training/jax.md", "jax-ids", [f"gym_suite_jax/{env_id}" for env_id in gym_suite.ENV_IDS]),
    ],
)
def test_the_id_tables_are_the_registrys(page, name, ids):
    rows = table_rows(page, name)
    assert [re.match(r"\| \[?`([^`]+)`", row).group(1) for row in rows] == ids
    if name in ("ids", "home-ids"):
        assert all(spec.summary in row for spec, row in zip(gym_suite.SPECS, rows))
    if name == "jax-ids":
        assert sorted(ids) == sorted(env_id for env_id in gymnasium.registry if env_id.startswith("gym_suite_jax/"))
        continuous = [i for i in gym_suite.ENV_IDS if isinstance(gymnasium.make(i).action_space, gymnasium.spaces.Box)]
        assert [i for i, row in zip(gym_suite.ENV_IDS, rows) if "SAC" in row] == continuous  # SAC and TD3 fit these


def test_the_quick_starts_controls_are_play_helps():
    rows = table_rows("docs/quickstart.md", "play-controls")
    named = [env_id for row in rows for env_id in re.findall(r"`([a-z0-9-]+)`", row.split(" | ")[0])]
    assert sorted(named) == sorted(gym_suite.ENV_IDS)
    for env_id, keys in KEYS.items():
        row = next(r for r in rows if f"`{env_id}`" in r)
        assert all(f"{key.shown} {key.label}" in row for key in keys), (env_id, row)
    assert "Esc" in "\n".join(rows)
    assert len(rows) < len(controls_help(gym_suite.ENV_IDS).splitlines())  # ids with the same keys share a row


@pytest.mark.parametrize("env_id", gym_suite.ENV_IDS)
def test_every_environment_page_opens_with_its_description(env_id):
    """The class's docstring opens (after a one-line title, if any) with ``## Description``."""
    module, _, name = gymnasium.spec(env_id).entry_point.partition(":")
    blocks = inspect.cleandoc(getattr(importlib.import_module(module), name).__doc__).split("\n\n")
    assert "## Description" in blocks[:2], blocks[:2]


def notes_rows(env_id: str, header: str) -> list[list[str]]:
    """The cells of the table of ``docs/env-notes/<env_id>.md`` whose header starts with ``header``."""
    lines = (ROOT / "docs" / "env-notes" / f"{env_id}.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip().strip("*") for cell in line.strip("|").split("|")])
    return [rows[0], *rows[2:]]


def test_push_v1s_budget_table_is_the_exact_values():
    from gym_suite.references.push_v1_optimum import exact_table

    header, *rows = notes_rows("push-v1", "| budget |")
    assert [int(cells[0]) for cells in rows] == [1, 2, 3, 5]
    for cells in rows:
        values = exact_table("test", int(cells[0]))
        normalized = (values["heuristic"] - values["random"]) / (values["optimum"] - values["random"])
        expected = [values[k] for k in ("random", "heuristic", "optimum", "hindsight")] + [normalized]
        assert cells[1:] == [f"{v:.3f}" for v in expected], cells


def test_target_v1s_speed_table_is_the_sweep(capsys):
    from gym_suite.references.target_optimum import sweep

    header, pursuit, lead = notes_rows("target-v1", "| target speed")
    speeds = [float(speed) for speed in header[1:]]
    sweep(2000, 100_000, speeds, 300)
    printed = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [float(fields[0]) for fields in printed] == speeds
    assert pursuit[1:] == [fields[-2] for fields in printed]
    assert lead[1:] == [fields[-1] for fields in printed]


def test_example_v1s_parameter_table_is_the_exact_values():
    from gym_suite.references.example_v1_optimum import sweep

    header, *rows = notes_rows("example-v1", "| line, horizon |")
    exact = {(row["rt_max"], row["horizon"], row["flip"]): row for row in sweep(lines=(10, 12))}
    assert len(rows) == len(exact)
    for cells in rows:
        rt_max, horizon = (int(n) for n in re.fullmatch(r"1\.\.(\d+), (\d+)", cells[0]).groups())
        row = exact[rt_max, horizon, float(cells[1])]
        shown = [float(x) for x in re.findall(r"-?\d+\.\d+", " ".join(cells[2:]))]
        exact_values = [row[k] for k in ("random", "best memoryless", "best memoryless normalized", "optimum")]
        # to the table's two decimals; a value on a rounding boundary may be shown either way
        assert all(abs(s - v) <= 0.005 + 1e-9 for s, v in zip(shown, exact_values, strict=True)), cells


def test_push_v0s_accuracy_table_is_the_logs():
    from importlib.resources import files

    import pandas as pd

    header, *rows = notes_rows("push-v0", "| policy | training log |")
    columns = {}
    for split in ("train", "test"):
        log = pd.read_csv(files("gym_suite.envs") / "data" / f"notifications_{split}.csv")
        opened, p_open = log["action"] == "opened", log["p_open"]
        whole_log = {"episode_length": None, "split": split}
        heuristic = gym_suite.evaluate("push-v0", "heuristic", episodes=1, env_kwargs=whole_log)
        columns[split] = [
            1 - opened.mean(),
            (heuristic.returns[0] / len(log) + 1) / 2,  # +1 right, -1 wrong
            ((p_open >= 0.5) == opened).mean(),
            p_open.where(p_open >= 0.5, 1 - p_open).mean(),
        ]
    assert [cells[1:] for cells in rows] == [
        [f"{train * 100:.1f} %", f"{test * 100:.1f} %"] for train, test in zip(columns["train"], columns["test"])
    ]
