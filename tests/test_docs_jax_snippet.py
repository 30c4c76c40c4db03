"""The JAX page's rollout runs as written (the same text a user copies)."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("gymnax")

PAGE = Path(__file__).resolve().parents[1] / "docs" / "training" / "jax.md"


def page_block(marker: str) -> str:
    match = re.search(rf"<!-- {marker} -->\n```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert match, f"docs/training/jax.md has no {marker} block"
    return match.group(1)


def test_jax_page_rollout_runs():
    out = subprocess.run([sys.executable, "-c", page_block("jax-snippet")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    mean_reward = float(out.stdout.strip().splitlines()[-1])
    # a random policy on heartpole-v1: the half-hour's work less the attacks' expected cost
    assert math.isfinite(mean_reward) and -50.0 < mean_reward < 5.0
