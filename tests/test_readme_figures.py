"""README's train_ppo example quotes the baselines table (``docs/baselines.csv``)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_train_ppo_comment_is_the_tables_jax_ppo_row():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"<!-- train-ppo-snippet -->\n```python\n(.*?)```", text, re.S)[1]
    env_id = re.search(r'train_ppo\("([a-z0-9-]+)"', code).group(1)
    match = re.search(r"JAX PPO: IQM (-?\d+\.\d+) over (\d+) seeds", code)
    assert match, "the train_ppo example no longer quotes the table's JAX PPO row"
    with (ROOT / "docs" / "baselines.csv").open(encoding="utf-8", newline="") as f:
        (row,) = [row for row in csv.DictReader(f) if row["env_id"] == env_id and row["policy"] == "jax-ppo"]
    digits = len(match.group(1).split(".")[1])
    assert (match.group(1), int(match.group(2))) == (f"{float(row['iqm']):.{digits}f}", int(row["seeds"])), row
