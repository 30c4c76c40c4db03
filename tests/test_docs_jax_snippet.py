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


def test_jax_page_parameters_as_data_runs():
    out = subprocess.run(
        [sys.executable, "-c", page_block("jax-params-snippet")], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    line = r"target_speed ([\d.]+): (\d+) of (\d+) episodes caught, \d+ steps an episode"
    rows = [re.fullmatch(line, text) for text in out.stdout.strip().splitlines()]
    assert all(rows), out.stdout
    speeds, caught, episodes = ([float(row[i]) for row in rows] for i in (1, 2, 3))
    assert speeds == [0.25, 0.5, 1.0, 1.5, 2.0]
    # pursuit catches every target slower than the worker; faster ones take longer, some escape
    assert caught[0] == episodes[0] and caught[1] == episodes[1]
    assert episodes == sorted(episodes, reverse=True) and episodes[-1] < episodes[0]


def test_jax_page_drawn_parameters_run_at_a_small_budget():
    """The training on drawn target speeds, as the page writes it, at one update of the recipe's
    (the page's 2M steps are the slow test's, tests/test_training_jax.py) and 20 episodes a speed."""
    pytest.importorskip("rejax")
    code = page_block("jax-drawn-snippet")
    small = code.replace("draw_params=draw)", "draw_params=draw, total_timesteps=8192, progress=False)")
    small = small.replace("episodes=300", "episodes=20")
    assert small.count("total_timesteps=8192") == 1 and small.count("episodes=20") == 2, code
    out = subprocess.run([sys.executable, "-c", small], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    line = r"target_speed ([\d.]+): PPO (-?[\d.]+), heuristic (-?[\d.]+)"
    rows = [re.fullmatch(line, text) for text in out.stdout.strip().splitlines()]
    assert all(rows) and all(-301.0 <= float(row[i]) <= 0.0 for row in rows for i in (2, 3)), out.stdout
    assert [float(row[1]) for row in rows] == [0.5, 1.0, 1.5, 2.0]
