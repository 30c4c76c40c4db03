"""Every script of gym-suite/ still imports the package's names and answers --help (the RLlib one where ray is)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every script starts a fresh interpreter (torch, JAX): about a minute in all

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "gym-suite").rglob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_script_answers_help(script):
    assert {p.parent.name for p in SCRIPTS} >= {"analyses", "benchmarks", "examples", "tools"}  # all found
    if script.name == "train_rllib.py" and importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (the RLlib tests have their own virtual environment)")
    done = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0 and "usage:" in done.stdout.lower(), done.stderr[-2000:]
