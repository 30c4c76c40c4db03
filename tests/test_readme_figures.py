"""README's figures come from their sources: every number in README's prose is one this test
knows and checks against its source (``docs/baselines.csv``, the baselines script), so that a
commit cannot leave one behind. Code, links and the generated tables are not prose."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import gym_suite

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BASELINES_CSV = ROOT / "docs" / "baselines.csv"
NUMBER = r"(?<![\w-])(\d[\d,.]*\d|\d)(?![\w-])"  # a number, not part of a name (Stable-Baselines3, v0)


def baselines_row(env_id: str, policy: str) -> dict[str, str]:
    with BASELINES_CSV.open(encoding="utf-8", newline="") as f:
        rows = [row for row in csv.DictReader(f) if row["env_id"] == env_id and row["policy"] == policy]
    assert len(rows) == 1, f"docs/baselines.csv has {len(rows)} rows for {env_id} {policy}"
    return rows[0]


def prose(text: str) -> str:
    """README without its code blocks, inline code, HTML comments, link targets and generated tables."""
    text = re.sub(r"<!-- baselines-headline:start -->.*?<!-- baselines-headline:end -->", "", text, flags=re.S)
    text = re.sub(r"<!-- generated:(\S+) -->.*?<!-- end:\1 -->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    return re.sub(r"https?://\S+", "", text)


def prose_figures() -> dict[str, str]:
    """Every number in README's prose, and the context it appears in (for the failure message)."""
    text = prose(README.read_text(encoding="utf-8"))
    return {m.group(0): text[max(0, m.start() - 40) : m.end() + 40] for m in re.finditer(NUMBER, text)}


def checked_figures() -> set[str]:
    """The numbers README's prose may state, each from its source."""
    with BASELINES_CSV.open(encoding="utf-8", newline="") as f:  # the ids with rows (a new id has none yet)
        scored = {row["env_id"] for row in csv.DictReader(f)} & set(gym_suite.ENV_IDS)
    eval_episodes = {baselines_row(env_id, "random")["eval_episodes"] for env_id in scored}
    assert len(eval_episodes) == 1, f"the table's ids are scored on different numbers of episodes: {eval_episodes}"
    return {
        f"{int(eval_episodes.pop()):,}",  # "the same 1,000 seeded evaluation episodes"
        "0",  # the normalized score's definition: 0 is the random policy ...
        "1",  # ... and 1 the optimum
        confidence_percent(),  # "its 95 % interval": the baselines table's level
    }


def confidence_percent() -> str:
    """The level of the baselines table's intervals (``CONFIDENCE`` of its script), in percent."""
    found = {
        level
        for path in (ROOT / "gym-suite" / "benchmarks").rglob("*.py")
        for level in re.findall(r"^CONFIDENCE = (0\.\d+)$", path.read_text(encoding="utf-8"), re.M)
    }
    assert len(found) == 1, f"gym-suite/benchmarks/ sets CONFIDENCE to {found or 'nothing'}"
    return f"{float(found.pop()) * 100:g}"


def test_every_figure_in_readmes_prose_is_checked():
    unchecked = {figure: context for figure, context in prose_figures().items() if figure not in checked_figures()}
    assert not unchecked, (
        "README.md states figures no test checks (give each a source in tests/test_readme_figures.py, "
        f"or move it to the documentation): {unchecked}"
    )


def test_the_prose_check_sees_a_figure_and_ignores_code():
    sample = (
        "Stable-Baselines3 took 5 min 26 s.\n\n```bash\npytest -n 2\n```\n\nRun `gym-suite evaluate --episodes 1000`.\n"
    )
    figures = re.findall(NUMBER, prose(sample))
    assert figures == ["5", "26"]


def test_train_ppo_comment_is_the_tables_jax_ppo_row():
    """The train_ppo example's comment quotes the baselines table's JAX PPO row for heartpole-v1."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- train-ppo-snippet -->\n```python\n(.*?)```", text, re.S)
    assert block, "README.md has no train-ppo-snippet block"
    code = block.group(1)
    env_id = re.search(r'train_ppo\("([a-z0-9-]+)"', code).group(1)
    match = re.search(r"JAX PPO: IQM (-?\d+\.\d+) over (\d+) seeds", code)
    assert match, "the train_ppo example no longer quotes the table's JAX PPO row"
    row = baselines_row(env_id, "jax-ppo")
    digits = len(match.group(1).split(".")[1])
    assert match.group(1) == f"{float(row['iqm']):.{digits}f}", (match.group(1), row["iqm"])
    assert int(match.group(2)) == int(row["seeds"])
